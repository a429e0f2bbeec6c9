package dev.unicomm.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * The worker side of {@code --jfr}: when {@link JfrOption#ENV} is set, records this rank with the
 * JDK's "default" settings plus every {@code dev.unicomm.*} event, and writes the file when closed
 * (or, should the rank exit early, when the JVM exits).
 */
final class BenchRecording implements AutoCloseable {
    private final Recording recording;

    private BenchRecording(Recording recording) { this.recording = recording; }

    /** Starts a recording if the launcher asked for one; a no-op handle otherwise. */
    static BenchRecording startIfRequested() {
        String prefix = System.getenv(JfrOption.ENV);
        if (prefix == null || prefix.isBlank()) return new BenchRecording(null);
        String rank = System.getenv().getOrDefault("UNICOMM_RANK", "0");
        try {
            Recording r = new Recording(Configuration.getConfiguration("default"));
            for (String e : new String[] {"CommunicatorOpen", "CommunicatorClose", "RmaBatch", "Barrier", "Collective", "Moe"})
                r.enable("dev.unicomm." + e);
            r.setName("unicomm bench rank " + rank);
            r.setDestination(Path.of(prefix + "-rank" + rank + ".jfr"));
            r.setDumpOnExit(true);
            r.start();
            return new BenchRecording(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the JFR recording for " + prefix, e);
        } catch (ParseException e) {
            throw new IllegalStateException("the JDK's 'default' JFR configuration did not parse", e);
        }
    }

    /** Stops the recording, which writes it to its destination. */
    @Override public void close() {
        if (recording == null) return;
        recording.stop();
        recording.close();
    }
}
