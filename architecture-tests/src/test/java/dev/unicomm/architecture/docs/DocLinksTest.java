package dev.unicomm.architecture.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every relative link of every Markdown file in the repository resolves inside it, anchors included (docs/README.md). */
class DocLinksTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyLinkAndAnchorResolvesInsideTheRepository() {
        List<Path> files = Markdown.allUnder(ROOT);
        for (String expected : List.of("README.md", "BENCHMARKS.md", "RELIABILITY.md", "docs/troubleshooting.md"))
            assertTrue(files.contains(ROOT.resolve(expected)), "the walk must find " + expected + "; found " + files);
        assertEquals(List.of(), new LinkChecker(ROOT).check(files), "broken links (file:line: (target) why)");
    }

    @Test
    void theCheckerReportsExactlyThePlantedBrokenLinks(@TempDir Path dir) throws Exception {
        Path repo = Files.createDirectories(dir.resolve("repo"));
        Files.createDirectories(repo.resolve("docs"));
        Files.writeString(dir.resolve("outside.md"), "# Outside\n");
        Files.writeString(repo.resolve("docs/b.md"), "# Real heading\n## Same\n## Same\n");
        Files.writeString(
                repo.resolve("docs/a.md"),
                String.join(
                        "\n",
                        "# A heading",
                        "Good: [b](b.md), [heading](b.md#real-heading), [second Same](b.md#same-1), [self](#a-heading), [folder](../docs/).",
                        "Code is not a link: `[x](missing-in-code.md)`.",
                        "```",
                        "[y](missing-in-fence.md)",
                        "```",
                        "Bad: [file](missing.md) and [anchor](b.md#no-such-heading).",
                        "![image](../img/absent.png)",
                        "[escape](../../outside.md) [url](https://example.com/) [self anchor](#nope)",
                        "[ref]: ../docs/gone.md",
                        ""));
        List<String> problems = new LinkChecker(repo).check(List.of(repo.resolve("docs/a.md")));
        assertEquals(
                List.of(
                        "docs/a.md:7: (missing.md) no such file or folder",
                        "docs/a.md:7: (b.md#no-such-heading) no heading with anchor #no-such-heading in docs/b.md",
                        "docs/a.md:8: (../img/absent.png) no such file or folder",
                        "docs/a.md:9: (../../outside.md) points outside the repository",
                        "docs/a.md:9: (https://example.com/) is a URL: links must point inside the repository",
                        "docs/a.md:9: (#nope) no heading with anchor #nope in docs/a.md",
                        "docs/a.md:10: (../docs/gone.md) no such file or folder"),
                problems);
    }

    @Test
    void slugsAreGitHubs() {
        assertEquals("rdma-no-device", Markdown.slug("rdma: no device"));
        assertEquals("9-moe-dispatch-and-combine", Markdown.slug("9. MoE dispatch and combine"));
        assertEquals("the-shared-memory-backend-shm", Markdown.slug("The shared-memory backend (`shm`)"));
        assertEquals("issue-18--runtime-failure-paths", Markdown.slug("Issue 18 — runtime failure paths"));
        assertEquals("shm-devshm-too-small", Markdown.slug("shm: /dev/shm too small"));
        assertEquals("see-the-docs", Markdown.slug("See [the docs](x.md)"));
    }
}
