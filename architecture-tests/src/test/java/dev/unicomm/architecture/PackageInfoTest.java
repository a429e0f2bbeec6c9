package dev.unicomm.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every package of every module's main sources has a {@code package-info.java} that says what lives there and
 * who may depend on it (Netty's convention). Test sources share their module's packages and are not checked.
 */
class PackageInfoTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyMainPackageHasAPackageInfo() throws IOException {
        List<String> missing = missing(ROOT);
        assertEquals(
                List.of(),
                missing,
                "packages without a package-info.java (one sentence: what lives there, who may depend on it)");
    }

    @Test
    void theScanFindsAPlantedPackageWithoutOne(@TempDir Path repo) throws IOException {
        Path signed = Files.createDirectories(repo.resolve("mod/src/main/java/a/b"));
        Files.writeString(signed.resolve("A.java"), "package a.b; class A {}");
        Files.writeString(signed.resolve("package-info.java"), "/** Signed. */ package a.b;");
        Path bare = Files.createDirectories(repo.resolve("mod/src/main/java/a/c"));
        Files.writeString(bare.resolve("C.java"), "package a.c; class C {}");
        Files.writeString(repo.resolve("mod/src/main/java/module-info.java"), "module a {}");
        assertEquals(List.of("mod/src/main/java/a/c"), missing(repo));
    }

    /** Folders under any {@code src/main/java} that hold a Java file but no package-info (the module root excepted). */
    static List<String> missing(Path root) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(root)) {
            List<Path> dirs = walk.filter(Files::isDirectory)
                    .filter(d -> !d.toString().contains("/target/")
                            && !d.endsWith("target")
                            && !d.toString().contains("/.git"))
                    .filter(d ->
                            root.relativize(d).toString().replace('\\', '/').matches("(.+/)?src/main/java/.+"))
                    .toList();
            for (Path d : dirs) {
                boolean hasJava;
                try (Stream<Path> files = Files.list(d)) {
                    hasJava = files.anyMatch(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java"));
                }
                if (hasJava && !Files.exists(d.resolve("package-info.java")))
                    out.add(root.relativize(d).toString().replace('\\', '/'));
            }
        }
        assertTrue(Files.isDirectory(root), "no repository at " + root);
        return List.copyOf(out);
    }
}
