package dev.unicomm.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.bytedeco.javacpp.Loader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The native backends are packaged the JavaCPP way: the main jar holds no native code, the
 * {@code linux-x86_64}-classified jar holds the natives at {@code <package>/linux-x86_64/}, and
 * JavaCPP's Loader finds and loads the JNI shim from there. This module depends on the
 * {@code backend-*-platform} artifacts, so its class path is what a user's is. In a build that
 * stops before {@code package} the class path holds {@code target/classes} folders instead of
 * jars; then there is no packaging to check and the tests skip.
 */
class NativeJarsTest {
    /** A native backend: its JavaCPP binding class and the files its natives jar must hold. */
    record Backend(String name, String bindingClass, List<String> natives) {
        String nativeDir() {
            return "dev/unicomm/backend/" + name + "/internal/linux-x86_64/";
        }

        @Override
        public String toString() {
            return "backend-" + name;
        }
    }

    static Stream<Backend> backends() {
        return Stream.of(
                new Backend("rdma", "dev.unicomm.backend.rdma.internal.VerbsShim", List.of("libjniVerbsShim.so")),
                new Backend(
                        "nvshmem",
                        "dev.unicomm.backend.nvshmem.internal.NvshmemShim",
                        List.of("libjniNvshmemShim.so", "ops-build.txt")),
                new Backend(
                        "ascend", "dev.unicomm.backend.ascend.internal.AscendShim", List.of("libjniAscendShim.so")));
    }

    private static final ClassLoader LOADER = NativeJarsTest.class.getClassLoader();

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void mainJarHoldsNoNativesAndTheClassifierJarHoldsThem(Backend b) throws IOException {
        Path mainJar = packagedJarOf(b);
        assertTrue(
                mainJar.getFileName().toString().matches("backend-" + b.name() + "-[^-]+(-SNAPSHOT)?\\.jar"),
                "the binding class should come from the main jar, came from " + mainJar);
        try (JarFile jar = new JarFile(mainJar.toFile())) {
            List<String> natives = jar.stream()
                    .map(e -> e.getName())
                    .filter(n -> n.endsWith(".so") || (n.startsWith(b.nativeDir()) && !n.equals(b.nativeDir())))
                    .toList();
            assertEquals(
                    List.of(),
                    natives,
                    mainJar.getFileName() + " must hold Java classes only; natives belong in the linux-x86_64 jar");
        }
        List<String> expected = new ArrayList<>(b.natives());
        if (b.name().equals("nvshmem") && opsLibraryWasBuilt(b)) expected.add("libunicomm_nvshmem_ops.so");
        for (String file : expected) {
            // The cli jar's manifest Class-Path adds cli/target/lib's copy of the same jar: several copies, all natives
            // jars.
            List<URL> found = Collections.list(LOADER.getResources(b.nativeDir() + file));
            assertTrue(!found.isEmpty(), b.nativeDir() + file + " is not on the class path");
            for (URL url : found) {
                Path from = jarOf(url);
                assertTrue(
                        from.getFileName()
                                .toString()
                                .matches("backend-" + b.name() + "-[^-]+(-SNAPSHOT)?-linux-x86_64\\.jar"),
                        file + " should come from backend-" + b.name() + "'s linux-x86_64 jar, came from " + from);
                try (JarFile jar = new JarFile(from.toFile())) {
                    assertEquals(
                            List.of(),
                            jar.stream()
                                    .map(e -> e.getName())
                                    .filter(n -> n.endsWith(".class"))
                                    .toList(),
                            from.getFileName() + " must hold natives only");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void javacppLoadsTheShimFromTheClassifierJar(Backend b) throws Exception {
        packagedJarOf(b);
        Class<?> binding = Class.forName(b.bindingClass(), false, LOADER);
        String loaded = Loader.load(binding);
        assertNotNull(loaded, "JavaCPP's Loader returned no library for " + b.bindingClass());
        assertEquals(
                b.natives().getFirst(),
                Path.of(loaded).getFileName().toString(),
                "library loaded for " + b.bindingClass());
        assertTrue(Files.isRegularFile(Path.of(loaded)), "JavaCPP extracted the library to " + loaded);
        // Companions are extracted the same way (backend-nvshmem's ops library: Loader.cacheResource in NvLibrary).
        for (String file : b.natives()) {
            java.io.File extracted = Loader.cacheResource(binding, "linux-x86_64/" + file);
            assertNotNull(extracted, "JavaCPP found no " + file + " next to " + b.bindingClass());
            assertTrue(extracted.isFile() && extracted.length() > 0, "extracted " + extracted);
        }
        if (b.name().equals("nvshmem") && opsLibraryWasBuilt(b))
            assertTrue(
                    Loader.cacheResource(binding, "linux-x86_64/libunicomm_nvshmem_ops.so")
                                    .length()
                            > 0,
                    "the CUDA ops library extracts");
    }

    /** The jar the binding class comes from; skips when it comes from a build folder (nothing was packaged). */
    private static Path packagedJarOf(Backend b) throws IOException {
        URL cls = LOADER.getResource(b.bindingClass().replace('.', '/') + ".class");
        assertNotNull(cls, b.bindingClass() + " is not on the class path");
        assumeTrue(
                cls.getProtocol().equals("jar"),
                "backend-" + b.name() + " was not packaged in this build (its classes come from " + cls
                        + "): run `verify` to check the jars");
        return jarOf(cls);
    }

    private static Path jarOf(URL entry) throws IOException {
        assertEquals("jar", entry.getProtocol(), "expected a jar entry, got " + entry);
        try {
            return Path.of(
                    ((JarURLConnection) entry.openConnection()).getJarFileURL().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException("unusable jar location in " + entry, e);
        }
    }

    private static boolean opsLibraryWasBuilt(Backend b) throws IOException {
        try (InputStream in = LOADER.getResourceAsStream(b.nativeDir() + "ops-build.txt")) {
            assertNotNull(in, "ops-build.txt records whether the CUDA ops library was built; it is missing");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).startsWith("built:");
        }
    }
}
