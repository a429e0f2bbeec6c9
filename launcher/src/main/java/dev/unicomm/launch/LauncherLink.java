package dev.unicomm.launch;

import dev.unicomm.internal.rendezvous.StoreTls;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A rank's tie to {@code unicomm run}. The launcher keeps a pipe on every rank's standard input
 * and never closes it while it lives; the kernel closes it when the launcher ends, however it ends
 * ({@code kill -9} included). The pipe first carries a short header (the job's TLS keystore, so
 * that no key file has to outlive anyone), then nothing: a watchdog thread blocks on it, and end
 * of stream means the launcher is gone, so the rank exits instead of running on as an orphan.
 */
final class LauncherLink {
    private LauncherLink() {}

    /** Set by the launcher in every rank's environment: the header is on standard input. */
    static final String ENV = "UNICOMM_LAUNCHER_PIPE";

    static final String MAGIC = "UNICOMM-LAUNCHER 1";
    static final String KEYSTORE = "keystore ";
    static final String END = "end";
    /** Exit code of a rank whose launcher is gone (128 + SIGHUP, as for a lost terminal). */
    static final int ORPHAN_EXIT_CODE = 129;
    /** How long shutdown hooks get before the orphan halts. */
    private static final long EXIT_GRACE_MILLIS = 5_000;

    /** The header the launcher writes to a rank's standard input. */
    static byte[] header(byte[] keystore) {
        StringBuilder sb = new StringBuilder(MAGIC).append('\n');
        if (keystore != null)
            sb.append(KEYSTORE)
                    .append(Base64.getEncoder().encodeToString(keystore))
                    .append('\n');
        return sb.append(END).append('\n').toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** In a rank started by the launcher: reads the header and starts the watchdog. Otherwise nothing. */
    static void attachIfLaunched() throws IOException {
        if (!"1".equals(System.getenv(ENV))) return;
        InputStream pipe = new FileInputStream(FileDescriptor.in);
        String first = line(pipe);
        if (!MAGIC.equals(first))
            throw new IOException("rank started with " + ENV
                    + "=1 but its standard input does not come from 'unicomm run' (got "
                    + (first == null ? "end of stream" : "'" + first.substring(0, Math.min(40, first.length())) + "'")
                    + ")");
        for (String l; (l = line(pipe)) != null && !l.equals(END); ) {
            if (l.startsWith(KEYSTORE))
                StoreTls.useLauncherKeystore(Base64.getDecoder().decode(l.substring(KEYSTORE.length())));
        }
        System.setIn(InputStream.nullInputStream()); // user code sees an empty standard input, as before
        Thread.ofPlatform().daemon().name("unicomm-launcher-watchdog").start(() -> watch(pipe));
    }

    private static void watch(InputStream pipe) {
        try {
            while (pipe.read() >= 0) {
                // the launcher never writes after the header; ignore anything else
            }
        } catch (IOException e) {
            // a broken pipe means the same: the launcher is gone
        }
        String rank = System.getenv().getOrDefault("UNICOMM_RANK", "?");
        System.err.println("[unicomm] rank " + rank + ": the launcher (unicomm run) is gone; exiting");
        Thread.ofPlatform().daemon().start(() -> System.exit(ORPHAN_EXIT_CODE));
        try {
            Thread.sleep(EXIT_GRACE_MILLIS);
        } catch (InterruptedException ignored) {
            // halt anyway
        }
        Runtime.getRuntime().halt(ORPHAN_EXIT_CODE); // a shutdown hook hung: do not linger
    }

    /** One ASCII line without its newline; null at end of stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) return b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
            if (b.size() > (1 << 20)) throw new IOException("launcher header line is too long");
            b.write(c);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
