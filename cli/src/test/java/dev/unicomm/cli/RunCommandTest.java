package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(600)
class RunCommandTest {
    @TempDir
    Path dir;

    @Test
    void runsATwoRankJobOfAMainClass() {
        Captured r =
                CliRunner.line("run -n 2 --backend shm --timeout 90s -- " + RankProgram.class.getName() + " --flag x");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("[0] rank 0/2 joined as #"), r.out());
        assertTrue(r.out().contains("[1] rank 1/2 joined as #"), r.out());
        assertTrue(r.out().contains("backend=shm args=--flag,x"), r.out());
    }

    @Test
    void runsAJarByItsManifestAndPropagatesTheFailure() throws IOException {
        Path jar = dir.resolve("app.jar");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, RankProgram.class.getName());
        try (OutputStream o = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(o, m)) {
            j.flush();
        }
        Captured r = CliRunner.run("run", "-n", "2", "--kill-grace", "1s", "--", jar.toString(), "fail", "1", "9");
        assertEquals(9, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("rank 1 exited with code 9"), r.err());
    }

    /** Issue 45: a mistyped --cp jar or main class used to give a ClassNotFoundException stack trace on every rank. */
    @Test
    void aMistypedClassPathOrMainClassIsOneLineAndNoRankStarts() {
        Path missing = dir.resolve("missing.jar");
        Captured jar = CliRunner.run("run", "-n", "2", "--cp", missing.toString(), "--", RankProgram.class.getName());
        assertEquals(2, jar.code(), jar.out() + jar.err());
        assertEquals(
                "unicomm run: class path entry " + missing + " does not exist (--verbose prints the stack trace)",
                jar.err().strip());
        assertEquals("", jar.out());
        Captured main = CliRunner.run("run", "-n", "2", "--", RankProgram.class.getName() + "x");
        assertEquals(2, main.code(), main.out() + main.err());
        assertEquals(1, main.err().strip().lines().count(), main.err());
        assertTrue(
                main.err()
                        .startsWith(
                                "unicomm run: main class dev.unicomm.cli.RankProgramx is not on the ranks' class path"),
                main.err());
        assertFalse(main.err().contains("ClassNotFoundException") || main.err().contains("[0]"), main.err());
    }

    @Test
    void badArgumentsAreUsageErrors() throws IOException {
        Captured zero = CliRunner.run("run", "-n", "0", "--", RankProgram.class.getName());
        assertEquals(2, zero.code());
        assertTrue(zero.err().contains("number of ranks must be in [1, 1024]"), zero.err());
        Captured badTime = CliRunner.run("run", "-n", "2", "--timeout", "soon", "--", RankProgram.class.getName());
        assertEquals(2, badTime.code());
        assertTrue(badTime.err().contains("--timeout must look like"), badTime.err());
        Path noMain = dir.resolve("nomain.jar");
        try (OutputStream o = Files.newOutputStream(noMain);
                JarOutputStream j = new JarOutputStream(o, new Manifest())) {
            j.flush();
        }
        Captured jar = CliRunner.run("run", "-n", "2", "--", noMain.toString());
        assertEquals(2, jar.code());
        assertTrue(jar.err().contains("names no Main-Class"), jar.err());
    }
}
