package dev.unicomm.internal.rendezvous;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for the rendezvous store. A job uses one PKCS12 keystore holding one self-signed key pair:
 * it is both every rank's identity and the only certificate trusted (mutual TLS with a per-job
 * pinned certificate, so host names are not checked). The keystore and its password come from
 * {@code unicomm.tls.keystore} / {@code unicomm.tls.password} (or {@code UNICOMM_TLS_KEYSTORE} /
 * {@code UNICOMM_TLS_PASSWORD}); {@code unicomm run --tls} creates them per job.
 */
public final class StoreTls {
    private StoreTls() {}

    /** Property naming the PKCS12 keystore file. */
    public static final String KEYSTORE_PROPERTY = "unicomm.tls.keystore";
    /** Property holding the keystore password. */
    public static final String PASSWORD_PROPERTY = "unicomm.tls.password";

    /**
     * The keystore value {@code unicomm run} gives its ranks: the keystore itself came through the
     * launcher's pipe and lives only in memory, so no key file can outlive the job.
     */
    public static final String FROM_LAUNCHER = "unicomm-run:in-memory";

    private static volatile byte[] launcherKeystore;

    /** Keeps the keystore the launcher handed this rank (see {@link #FROM_LAUNCHER}). */
    public static void useLauncherKeystore(byte[] pkcs12) {
        launcherKeystore = pkcs12.clone();
    }

    /** The TLS context that {@code config} describes. */
    public static SSLContext fromConfig(CommConfig config) {
        String file = config.property(KEYSTORE_PROPERTY, null);
        String password = config.property(PASSWORD_PROPERTY, null);
        if (file == null || file.isBlank() || password == null)
            throw new IllegalArgumentException("TLS for the rendezvous store is on (UNICOMM_TLS=true) but "
                    + (file == null || file.isBlank() ? "no keystore is set (UNICOMM_TLS_KEYSTORE / -Dunicomm.tls.keystore)"
                    : "no keystore password is set (UNICOMM_TLS_PASSWORD / -Dunicomm.tls.password)")
                    + "; 'unicomm run --tls' sets both, or create one with StoreTls.createSelfSignedKeystore");
        if (file.equals(FROM_LAUNCHER)) {
            byte[] held = launcherKeystore;
            if (held == null)
                throw new IllegalArgumentException("UNICOMM_TLS_KEYSTORE=" + FROM_LAUNCHER + " means the keystore comes from "
                        + "'unicomm run' through the rank's standard input, but this process did not get one: start it with "
                        + "'unicomm run --tls', or point UNICOMM_TLS_KEYSTORE at a PKCS12 file");
            return context(held, password.toCharArray(), "handed over by unicomm run");
        }
        Path keystore = Path.of(file);
        if (!Files.isReadable(keystore))
            throw new IllegalArgumentException("TLS keystore " + keystore + " does not exist or is not readable");
        return context(keystore, password.toCharArray());
    }

    /** A TLS 1.3 context whose key and only trusted certificate come from the PKCS12 {@code keystore}. */
    public static SSLContext context(Path keystore, char[] password) {
        if (!Files.isReadable(keystore))
            throw new IllegalArgumentException("TLS keystore " + keystore + " does not exist or is not readable");
        try {
            return context(Files.readAllBytes(keystore), password, keystore.toString());
        } catch (IOException e) {
            throw new CommException("cannot read TLS keystore " + keystore + ": " + e.getMessage(), e);
        }
    }

    private static SSLContext context(byte[] pkcs12, char[] password, String source) {
        try (InputStream in = new java.io.ByteArrayInputStream(pkcs12)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new CommException("cannot load TLS keystore " + source + " (PKCS12, password from UNICOMM_TLS_PASSWORD): "
                    + e.getMessage(), e);
        }
    }

    /**
     * Creates a PKCS12 keystore at {@code file} (which must not exist) holding a fresh self-signed
     * EC P-256 key pair valid for two days, by running the JDK's {@code keytool}. The password goes
     * to keytool through its environment, never its command line. The file is made owner-only.
     */
    public static void createSelfSignedKeystore(Path file, char[] password) {
        if (password.length < 6) throw new IllegalArgumentException("keystore password must have at least 6 characters");
        if (Files.exists(file)) throw new IllegalArgumentException("keystore " + file + " already exists");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        if (!Files.isExecutable(keytool)) throw new CommException("cannot create a TLS keystore: " + keytool + " not found (a full JDK is needed)");
        ProcessBuilder pb = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-noprompt",
                "-alias", "unicomm-job", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=unicomm job", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-storetype", "PKCS12", "-keystore", file.toString(), "-storepass:env", "UNICOMM_KEYTOOL_PASSWORD"));
        pb.environment().put("UNICOMM_KEYTOOL_PASSWORD", new String(password));
        pb.redirectErrorStream(true);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            byte[] output = p.getInputStream().readAllBytes();
            // Generous: keytool is a JVM start, which a busy machine can slow down by minutes.
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new CommException("keytool did not finish within 300 s");
            }
            if (p.exitValue() != 0)
                throw new CommException("keytool failed (exit " + p.exitValue() + "): " + new String(output, StandardCharsets.UTF_8).trim());
            try {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: keep the default permissions
            }
        } catch (IOException e) {
            throw new CommException("cannot run keytool to create a TLS keystore: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("interrupted while creating a TLS keystore", e);
        }
    }
}
