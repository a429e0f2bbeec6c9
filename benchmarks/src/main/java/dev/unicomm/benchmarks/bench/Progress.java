package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A progress indicator on stderr for benchmark jobs that run longer than a few seconds: nothing for
 * the first {@link #QUIET_MS} ms, then, on a terminal, a bar redrawn in place every second; when
 * stderr is not a terminal (CI logs), one line every ten seconds. Rows are counted from the job's
 * output through {@link #counting(OutputStream, String)} or {@link #row()}; a job that prints no rows
 * until it ends but runs for a known time ({@code bench soak}) gets a bar of elapsed time instead.
 */
final class Progress implements AutoCloseable {
    static final long QUIET_MS = 3000;
    private static final int BAR = 30;

    private final String label;
    private final int expected;
    private final long expectedMs;
    private final PrintStream err;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private final AtomicInteger rows = new AtomicInteger();
    private final Thread ticker;
    private volatile boolean drawn;

    /** @param expected rows the job will print, or 0 when unknown (then no bar, just the count) */
    Progress(String label, int expected, PrintStream err, boolean terminal) {
        this(label, expected, 0, err, terminal);
    }

    /** @param expectedMs how long the job will run, or 0: then the bar counts rows */
    Progress(String label, int expected, long expectedMs, PrintStream err, boolean terminal) {
        this.label = label;
        this.expected = expected;
        this.expectedMs = expectedMs;
        this.err = err;
        this.terminal = terminal;
        this.ticker = Thread.ofPlatform().daemon().name("bench-progress").start(this::tick);
    }

    /** The usual indicator: stderr, drawn in place when a console is attached. */
    static Progress start(String label, int expected) {
        return new Progress(label, expected, 0, System.err, onTerminal());
    }

    /** An indicator of elapsed time for a job that runs {@code durationMs} (0 or less: unknown, then only the time is shown). */
    static Progress timed(String label, long durationMs) {
        return new Progress(label, 0, Math.max(0, durationMs), System.err, onTerminal());
    }

    private static boolean onTerminal() {
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    void row() {
        rows.incrementAndGet();
    }

    int rows() {
        return rows.get();
    }

    /** An output stream that forwards to {@code target} and counts lines containing {@code marker}. */
    OutputStream counting(OutputStream target, String marker) {
        return new OutputStream() {
            private final StringBuilder line = new StringBuilder();

            @Override
            public void write(int b) throws IOException {
                target.write(b);
                if (b == '\n') {
                    if (line.indexOf(marker) >= 0) row();
                    line.setLength(0);
                } else if (line.length() < 4096) {
                    line.append((char) b);
                }
            }

            @Override
            public void flush() throws IOException {
                target.flush();
            }
        };
    }

    private void tick() {
        long lastLine = 0;
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(terminal ? 1000 : 500);
                long ms = (System.nanoTime() - start) / 1_000_000;
                if (ms < QUIET_MS) continue;
                if (terminal) {
                    err.print("\r" + render(ms));
                    err.flush();
                    drawn = true;
                } else if (ms - lastLine >= 10_000 || lastLine == 0) {
                    err.println(render(ms));
                    lastLine = ms;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The indicator's text, e.g. {@code bench rma [#########.....] 9/15 rows  12 s} (timed: {@code [###...] 12/60 s}). */
    String render(long elapsedMs) {
        int done = rows.get();
        StringBuilder b = new StringBuilder(label).append(' ');
        if (expectedMs > 0) {
            int filled = (int) Math.min(BAR, BAR * elapsedMs / expectedMs);
            return b.append('[')
                    .append("#".repeat(filled))
                    .append(".".repeat(BAR - filled))
                    .append("] ")
                    .append(String.format(Locale.ROOT, "%d/%d s", elapsedMs / 1000, expectedMs / 1000))
                    .toString();
        }
        if (expected > 0) {
            int filled = (int) Math.min(BAR, (long) BAR * done / expected);
            b.append('[')
                    .append("#".repeat(filled))
                    .append(".".repeat(BAR - filled))
                    .append("] ")
                    .append(done)
                    .append('/')
                    .append(expected)
                    .append(" rows");
        } else {
            b.append(done).append(" rows");
        }
        return b.append(String.format(Locale.ROOT, "  %d s", elapsedMs / 1000)).toString();
    }

    @Override
    public void close() {
        ticker.interrupt();
        try {
            ticker.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (drawn) err.println();
    }
}
