package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

class InfoCommandTest {
    private static String run(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true));
        try {
            assertEquals(0, Main.run(args));
        } finally {
            System.setOut(old);
        }
        return buf.toString();
    }

    @Test void infoPrintsAReport() {
        String out = run("info");
        assertTrue(out.startsWith("unicomm backends ("), out);
        assertTrue(out.contains("default backend:"), out);
    }

    @Test void infoJsonIsAnArray() {
        String out = run("info", "--json").trim();
        assertTrue(out.startsWith("[") && out.contains("]"), out);
    }

    @Test void jsonEscapesControlCharacters() {
        assertEquals("\"a\\\"b\\n\\u0001\"", Json.str("a\"b\n\u0001"));
    }
}
