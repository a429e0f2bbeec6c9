package dev.unicomm.cli.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/writing-a-backend.md's project builds and runs the kit with the Maven most machines have (Debian's
 * 3.8.7) and with the project's own (the wrapper's 3.9): the test takes the doc's two pom fragments and its
 * kit test class verbatim, adds the example provider of this package ({@link VendorXProvider}, which needs
 * backend-shm as its transport: the one line added to the doc's dependencies), and builds it against this
 * reactor's freshly compiled modules (a local repository that holds them and links everything else to the
 * user's). Each build must compile for release 25 and run the kit's rules; a build of the same pom with no
 * test must fail, since a run of no tests certifies nothing. One rule of one suite keeps each build short.
 */
class DocExampleProjectTest {
    /** The unicomm modules the example needs, with the reactor's parent pom. */
    static final List<String> MODULES = List.of(
            "comm-api",
            "launcher",
            "moe-reference",
            "collectives",
            "conformance-tests",
            "backend-shm",
            "comm-archrules");
    /**
     * One rule of the doc's kit test (enough to show the plug, the suites and the worker JVMs work) and the doc's
     * architecture test (the published backend rules on the example's classes).
     */
    static final String ONE_RULE = "VendorXKitTest$Heap#required_heap_allocate_free,VendorXArchitectureTest";

    static final Duration BUILD_LIMIT = Duration.ofMinutes(5);

    static Path root;
    static Path work;
    static Path repository;
    static String version;

    @BeforeAll
    static void repositoryOfThisReactor() throws Exception {
        root = Path.of("").toAbsolutePath().getParent();
        Path doc = root.resolve("docs/writing-a-backend.md");
        assertTrue(
                Files.isRegularFile(doc), "no " + doc + ": the test runs from the cli module of the unicomm checkout");
        version = reactorVersion(Files.readString(root.resolve("pom.xml")));
        work = Files.createTempDirectory("unicomm-doc-example");
        repository = linkedRepository(work.resolve("repository"), userRepository());
        for (String m : MODULES) publish(m, version, root.resolve(m));
        Path parent = Files.createDirectories(repository.resolve("dev/unicomm/unicomm-parent/" + version));
        Files.copy(root.resolve("pom.xml"), parent.resolve("unicomm-parent-" + version + ".pom"));
    }

    @AfterAll
    static void removeWork() throws IOException {
        if (work == null) return;
        // the links into the user's repository are removed, never followed
        try (Stream<Path> all = Files.walk(work)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    @Test
    void theDocsProjectBuildsAndRunsTheKitWithMaven387() throws Exception {
        List<String> mvn = debianMaven();
        Path project = docProject("maven-3.8", true);
        Build b = build(mvn, project, "-Dtest=" + ONE_RULE);
        assertEquals(0, b.exit, "the doc's project must build and pass with Maven 3.8:\n" + b.tail());
        assertRulesRan(project, b);
    }

    @Test
    void theDocsProjectBuildsAndRunsTheKitWithTheWrappersMaven39() throws Exception {
        List<String> mvn = List.of(root.resolve("mvnw").toString());
        Path project = docProject("maven-3.9", true);
        Build b = build(mvn, project, "-Dtest=" + ONE_RULE);
        assertTrue(b.output.contains("Apache Maven 3.9."), "the wrapper's Maven is 3.9:\n" + b.head());
        assertEquals(0, b.exit, "the doc's project must build and pass with the wrapper's Maven 3.9:\n" + b.tail());
        assertRulesRan(project, b);
    }

    @Test
    void theDocsPomFailsABuildThatRunsNoTestWithMaven387() throws Exception {
        List<String> mvn = debianMaven();
        Path project = docProject("maven-3.8-no-tests", false);
        Build b = build(mvn, project);
        assertNotEquals(
                0,
                b.exit,
                "a build of the doc's pom that runs no test must fail (Maven 3.8's default surefire passed it):\n"
                        + b.tail());
        assertTrue(b.output.contains("No tests to run") || b.output.contains("No tests were executed"), b.tail());
    }

    // ---- the project -------------------------------------------------------------------------

    /** The doc's pom and kit test, this package's provider; {@code withKitTest} false leaves the project without tests. */
    static Path docProject(String name, boolean withKitTest) throws IOException {
        String doc = Files.readString(root.resolve("docs/writing-a-backend.md"));
        String dependencies = block(doc, "xml", "<dependencies>");
        String build = block(doc, "xml", "<build>");
        String kitTest = block(doc, "java", "KitPlug");
        // the example's transport, the one addition to the doc's dependencies
        dependencies = dependencies.replace(
                "</dependencies>",
                "  <dependency><groupId>dev.unicomm</groupId><artifactId>backend-shm</artifactId>"
                        + "<version>${unicomm.version}</version><scope>test</scope></dependency>\n</dependencies>");
        assertTrue(build.contains("<properties>"), "the doc's build fragment holds the properties");
        build = build.replace(
                "<properties>",
                "<properties>\n  <unicomm.version>" + version + "</unicomm.version>"
                        + "\n  <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>");
        String pom =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n"
                        + "<modelVersion>4.0.0</modelVersion>\n<groupId>com.vendorx</groupId>\n<artifactId>vendorx-unicomm</artifactId>\n"
                        + "<version>1.0</version>\n" + dependencies + build + "</project>\n";
        Path project = Files.createDirectories(work.resolve(name));
        Files.writeString(project.resolve("pom.xml"), pom);
        Path example = root.resolve("cli/src/test/java/dev/unicomm/cli/example");
        Path main = Files.createDirectories(project.resolve("src/main/java/dev/unicomm/cli/example"));
        for (String f : List.of("VendorXProvider.java", "StripedRma.java"))
            Files.copy(example.resolve(f), main.resolve(f));
        Path services = Files.createDirectories(project.resolve("src/main/resources/META-INF/services"));
        Files.writeString(
                services.resolve("dev.unicomm.spi.CommBackendProvider"), VendorXProvider.class.getName() + "\n");
        if (withKitTest) {
            Matcher pkg =
                    Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE).matcher(kitTest);
            assertTrue(pkg.find(), "the doc's kit test declares its package");
            Path tests = Files.createDirectories(
                    project.resolve("src/test/java/" + pkg.group(1).replace('.', '/')));
            Files.writeString(tests.resolve("VendorXKitTest.java"), kitTest);
            String archTest = block(doc, "java", "BackendRules");
            Matcher archPkg =
                    Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE).matcher(archTest);
            assertTrue(archPkg.find(), "the doc's architecture test declares its package");
            Path archDir = Files.createDirectories(
                    project.resolve("src/test/java/" + archPkg.group(1).replace('.', '/')));
            Files.writeString(archDir.resolve("VendorXArchitectureTest.java"), archTest);
        }
        return project;
    }

    /** The first fenced block of {@code language} containing {@code marker}. */
    static String block(String doc, String language, String marker) {
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL)
                .matcher(doc);
        while (m.find()) if (m.group(1).contains(marker)) return m.group(1);
        throw new AssertionError("docs/writing-a-backend.md has no ```" + language + " block with " + marker);
    }

    static void assertRulesRan(Path project, Build b) throws IOException {
        Path reports = project.resolve("target/surefire-reports");
        assertTrue(Files.isDirectory(reports), "no surefire reports: no test ran\n" + b.tail());
        int tests = 0;
        StringBuilder all = new StringBuilder();
        // test cases, not the testsuite's tests attribute: surefire counts a nested class's cases under it as 0
        try (Stream<Path> files = Files.list(reports)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("TEST-"))
                    .toList()) {
                String report = Files.readString(f);
                all.append(report);
                Matcher m = Pattern.compile("<testcase ").matcher(report);
                while (m.find()) tests++;
            }
        }
        assertEquals(2, tests, "the kit's rule and the architecture test ran, once each:\n" + b.tail());
        assertTrue(
                all.toString().contains("name=\"obeysUnicommsBackendRules\""),
                "the published backend rules ran:\n" + b.tail());
        assertTrue(b.output.contains("Tests run: 2, Failures: 0, Errors: 0, Skipped: 0"), b.tail());
    }

    // ---- Maven -------------------------------------------------------------------------------

    /** Debian's Maven 3.8 ({@code mvn} on the PATH), or a skip that says what is missing. */
    static List<String> debianMaven() throws Exception {
        Build v = run(List.of("mvn", "-v"), work, Duration.ofMinutes(1));
        assumeTrue(
                v.exit == 0 && v.output.contains("Apache Maven 3.8."),
                () -> "no Maven 3.8 on the PATH to check the doc's pom with"
                        + " (`mvn -v` "
                        + (v.exit < 0
                                ? "could not run"
                                : "says: " + v.output.lines().findFirst().orElse("")) + "); on Debian"
                        + " and Ubuntu: apt-get install maven");
        return List.of("mvn");
    }

    record Build(int exit, String output) {
        String tail() {
            List<String> lines = output.lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        }

        String head() {
            return output.lines().limit(20).reduce("", (a, l) -> a + l + "\n");
        }
    }

    static Build build(List<String> maven, Path project, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(maven);
        cmd.addAll(List.of("-B", "-V", "-ntp", "-Dmaven.repo.local=" + repository, "verify"));
        cmd.addAll(List.of(args));
        return run(cmd, project, BUILD_LIMIT);
    }

    /** Runs {@code cmd} in {@code dir} with this JVM's JDK; exit -1 if it could not start, -2 if it ran past {@code limit}. */
    static Build run(List<String> cmd, Path dir, Duration limit) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("JAVA_HOME", Path.of(System.getProperty("java.home")).toString());
        env.keySet().removeAll(List.of("MAVEN_OPTS", "MAVEN_ARGS", "MAVEN_CONFIG"));
        Path log = Files.createTempFile(work, "maven", ".log");
        pb.redirectOutput(log.toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Build(-1, e.getMessage());
        }
        boolean done = p.waitFor(limit.toSeconds(), TimeUnit.SECONDS);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        return new Build(done ? p.exitValue() : -2, done ? out : out + "\n(killed after " + limit + ")");
    }

    // ---- the repository ----------------------------------------------------------------------

    /** The reactor's version: the root pom's own, the first {@code <version>} after its artifactId. */
    static String reactorVersion(String rootPom) {
        Matcher m = Pattern.compile("<artifactId>unicomm-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(rootPom);
        assertTrue(m.find(), "the root pom names unicomm-parent's version");
        return m.group(1);
    }

    /** The local repository this test JVM's JUnit came from (org/junit/jupiter/junit-jupiter-api/VERSION/JAR). */
    static Path userRepository() throws Exception {
        Path jar = Path.of(org.junit.jupiter.api.Test.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path repo = jar;
        for (int i = 0; i < 6; i++) repo = repo.getParent();
        assertTrue(
                Files.isDirectory(repo.resolve("org/junit/jupiter")),
                "JUnit does not come from a Maven repository: " + jar);
        return repo;
    }

    /**
     * A local repository that holds this reactor's modules under {@code dev/unicomm} and links every other
     * entry to {@code user}'s: the build finds its plugins there, and never an installed, older unicomm.
     */
    static Path linkedRepository(Path at, Path user) throws IOException {
        Files.createDirectories(at.resolve("dev/unicomm"));
        try (Stream<Path> top = Files.list(user)) {
            for (Path e : top.toList())
                if (!e.getFileName().toString().equals("dev"))
                    Files.createSymbolicLink(at.resolve(e.getFileName().toString()), e);
        }
        if (Files.isDirectory(user.resolve("dev"))) {
            try (Stream<Path> dev = Files.list(user.resolve("dev"))) {
                for (Path e : dev.toList())
                    if (!e.getFileName().toString().equals("unicomm"))
                        Files.createSymbolicLink(
                                at.resolve("dev").resolve(e.getFileName().toString()), e);
            }
        }
        return at;
    }

    /** Puts module {@code m}'s pom and a jar of its freshly compiled classes where Maven looks for them. */
    static void publish(String m, String version, Path module) throws IOException {
        Path classes = module.resolve("target/classes");
        assertTrue(
                Files.isDirectory(classes),
                classes + " is missing: build the reactor first (the cli module's tests need its siblings compiled)");
        Path dir = Files.createDirectories(repository.resolve("dev/unicomm/" + m + "/" + version));
        Files.copy(module.resolve("pom.xml"), dir.resolve(m + "-" + version + ".pom"));
        try (OutputStream out = Files.newOutputStream(dir.resolve(m + "-" + version + ".jar"));
                JarOutputStream jar = new JarOutputStream(out);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.sorted().toList()) {
                String name = classes.relativize(f).toString().replace('\\', '/');
                if (name.isEmpty()) continue;
                jar.putNextEntry(new JarEntry(Files.isDirectory(f) ? name + "/" : name));
                if (Files.isRegularFile(f)) Files.copy(f, jar);
                jar.closeEntry();
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
