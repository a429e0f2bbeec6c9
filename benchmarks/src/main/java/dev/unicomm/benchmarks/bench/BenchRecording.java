package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * The recording side of {@code --jfr}: when {@link JfrOption#ENV} is set, a worker records its rank
 * with the JDK's "default" settings plus every {@code dev.unicomm.*} event, and writes the file when
 * closed (or, should the rank exit early, when the JVM exits). Commands that measure in their own
 * process ({@code bench p2p}) record it through {@link JfrOption#recordHere}.
 */
final class BenchRecording implements AutoCloseable {
    private final Recording recording;

    private BenchRecording(Recording recording) {
        this.recording = recording;
    }

    /** unicomm's events: the validating layer's (dev.unicomm.internal.checked) and the bench commands' own. */
    private static final List<String> EVENTS = List.of(
            "dev.unicomm.CommunicatorOpen",
            "dev.unicomm.CommunicatorClose",
            "dev.unicomm.RmaBatch",
            "dev.unicomm.Barrier",
            "dev.unicomm.Collective",
            "dev.unicomm.Moe",
            P2pRowEvent.NAME);

    /** Starts a recording if the launcher asked for one; a no-op handle otherwise. */
    static BenchRecording startIfRequested() {
        String prefix = System.getenv(JfrOption.ENV);
        if (prefix == null || prefix.isBlank()) return none();
        String rank = System.getenv().getOrDefault("UNICOMM_RANK", "0");
        return start(Path.of(prefix + "-rank" + rank + ".jfr"), "unicomm bench rank " + rank);
    }

    /** A handle that records nothing. */
    static BenchRecording none() {
        return new BenchRecording(null);
    }

    /** Records this JVM to {@code destination} until closed (or until the JVM exits). */
    static BenchRecording start(Path destination, String name) {
        try {
            Path parent = destination.toAbsolutePath().getParent();
            if (parent != null) java.nio.file.Files.createDirectories(parent); // --jfr /new/dir/x.jfr is fine
            Recording r = new Recording(Configuration.getConfiguration("default"));
            for (String e : EVENTS) r.enable(e);
            r.setName(name);
            r.setDestination(destination);
            r.setDumpOnExit(true);
            r.start();
            return new BenchRecording(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the JFR recording " + destination, e);
        } catch (ParseException e) {
            throw new IllegalStateException("the JDK's 'default' JFR configuration did not parse", e);
        }
    }

    /** Stops the recording, which writes it to its destination. */
    @Override
    public void close() {
        if (recording == null) return;
        recording.stop();
        recording.close();
    }
}
