package dev.unicomm.architecture.docs;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that every link of some Markdown files names a file or folder inside one repository and,
 * where it has a {@code #anchor} into a Markdown file, a heading of that file. A URL (any scheme)
 * counts as pointing outside: the docs must stand on their own in a checkout.
 */
final class LinkChecker {
    private final Path root;
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    LinkChecker(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** One line per broken link: {@code file:line: target: why}. Empty when all resolve. */
    List<String> check(List<Path> files) {
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            Path absolute = file.toAbsolutePath().normalize();
            for (Markdown.Link link : Markdown.read(absolute).links()) {
                String why = problem(absolute, link.target());
                if (why != null)
                    problems.add(root.relativize(absolute) + ":" + link.line() + ": (" + link.target() + ") " + why);
            }
        }
        return problems;
    }

    private String problem(Path file, String target) {
        if (target.matches("[A-Za-z][A-Za-z0-9+.-]*:.*")) return "is a URL: links must point inside the repository";
        int hash = target.indexOf('#');
        String pathPart = decode(hash < 0 ? target : target.substring(0, hash));
        String anchor = hash < 0 ? null : decode(target.substring(hash + 1));
        Path resolved = pathPart.isEmpty()
                ? file
                : (pathPart.startsWith("/")
                                ? root.resolve(pathPart.substring(1))
                                : file.getParent().resolve(pathPart))
                        .normalize();
        if (!resolved.startsWith(root)) return "points outside the repository";
        for (Path part : root.relativize(resolved))
            if (part.toString().equals("target"))
                return "points into build output (target/), which a checkout does not have";
        if (!Files.exists(resolved)) return "no such file or folder";
        if (anchor != null && resolved.toString().endsWith(".md")) {
            Set<String> known =
                    anchors.computeIfAbsent(resolved, p -> Markdown.read(p).anchors());
            if (!known.contains(anchor))
                return "no heading with anchor #" + anchor + " in " + root.relativize(resolved);
        }
        return null;
    }

    private static String decode(String s) {
        return s.contains("%") ? URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8) : s;
    }
}
