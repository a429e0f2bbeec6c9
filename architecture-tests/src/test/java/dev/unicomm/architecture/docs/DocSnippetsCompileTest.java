package dev.unicomm.architecture.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every {@code java} block of README.md and docs/**.md compiles against the modules (convention: docs/README.md). */
class DocSnippetsCompileTest {
    private static final Path ROOT = DocLinksTest.ROOT;

    @Test
    void everyJavaBlockOfTheReadmeAndDocsCompiles() {
        List<SnippetCompiler.Snippet> snippets = new ArrayList<>();
        for (Path file : Markdown.allUnder(ROOT)) {
            Path relative = ROOT.relativize(file);
            if (relative.toString().equals("README.md") || relative.startsWith("docs"))
                snippets.addAll(SnippetCompiler.javaBlocks(ROOT, file));
        }
        assertTrue(
                snippets.stream().anyMatch(s -> s.origin().equals("README.md")),
                "the README's example must be a java block");
        assertEquals(
                List.of(),
                SnippetCompiler.compile(snippets, SnippetCompiler.testClasspath()),
                "snippets that do not compile");
    }

    @Test
    void aBrokenSnippetFailsAndPointsAtItsLine(@TempDir Path dir) throws Exception {
        Path md = dir.resolve("page.md");
        Files.writeString(
                md,
                String.join(
                        "\n",
                        "# Page", // 1
                        "```java", // 2
                        "int peer = (comm.rank() + 1) % comm.size();", // 3: fragment, compiles
                        "```",
                        "```java", // 5
                        "import java.util.function.IntSupplier;", // 6: hoisted import
                        "",
                        "IntSupplier s = comm::rank;", // 8
                        "comm.rma().put(buf, 0, MemorySegment.ofArray(bytes), 1);", // 9: buf, bytes undeclared
                        "```",
                        "```java", // 11
                        "public class Hello {", // 12: a file of its own
                        "    void run(Communicator comm) { comm.barrier(); }", // 13: no import of the API
                        "}",
                        "```",
                        "```text",
                        "this is not Java",
                        "```",
                        ""));
        List<SnippetCompiler.Snippet> snippets = SnippetCompiler.javaBlocks(dir, md);
        assertEquals(3, snippets.size(), "the text block is not compiled");
        List<String> errors = SnippetCompiler.compile(snippets, SnippetCompiler.testClasspath());
        assertEquals(
                List.of("page.md:13", "page.md:9", "page.md:9"),
                errors.stream()
                        .map(e -> e.substring(0, e.indexOf(": ")))
                        .sorted()
                        .toList(),
                "errors: " + errors);
        assertTrue(errors.stream().allMatch(e -> e.contains("cannot find symbol")), "errors: " + errors);
    }
}
