package dev.unicomm.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.PrintStream;
import org.junit.jupiter.api.Test;

class ConsoleCaptureTest {
    @Test
    void keepsBothStreamsAndTheCodeAndRestoresTheConsole() {
        PrintStream out = System.out, err = System.err;
        ConsoleCapture.Captured c = ConsoleCapture.run(() -> {
            System.out.println("to out");
            System.err.println("to err");
            return 3;
        });
        assertEquals(
                new ConsoleCapture.Captured(3, "to out" + System.lineSeparator(), "to err" + System.lineSeparator()),
                c);
        assertSame(out, System.out);
        assertSame(err, System.err);
    }

    @Test
    void restoresTheConsoleWhenTheCommandThrows() {
        PrintStream out = System.out;
        assertThrows(
                IllegalStateException.class,
                () -> ConsoleCapture.run(() -> {
                    throw new IllegalStateException("boom");
                }));
        assertSame(out, System.out);
    }
}
