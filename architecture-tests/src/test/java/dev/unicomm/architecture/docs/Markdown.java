package dev.unicomm.architecture.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The parts of a Markdown file the doc checks need: links outside code, heading anchors as GitHub
 * makes them, and fenced code blocks. A small subset of CommonMark, enough for this repository's
 * pages: ATX headings, inline and reference links, backtick code spans, ``` and ~~~ fences.
 */
record Markdown(Path path, List<String> lines) {

    /** A link target as written, and the 1-based line it is on. */
    record Link(int line, String target) {}

    /** A fenced block: its info string's first word ("" if none), the line of its opening fence, its text. */
    record Block(String language, int line, String text) {}

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})\\s*([^\\s`]*).*$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern INLINE_LINK = Pattern.compile("\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?([^\\s>]+)>?.*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

    static Markdown read(Path path) {
        try {
            return new Markdown(path, Files.readAllLines(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every {@code *.md} under {@code root}, skipping {@code target/} and hidden folders ({@code .git}, {@code .mvn}, ...). */
    static List<Path> allUnder(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> !inSkippedFolder(root.relativize(p)))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean inSkippedFolder(Path relative) {
        for (int i = 0; i < relative.getNameCount() - 1; i++) {
            String folder = relative.getName(i).toString();
            if (folder.equals("target") || folder.startsWith(".")) return true;
        }
        return false;
    }

    /** Links outside fenced blocks and code spans, in file order. */
    List<Link> links() {
        List<Link> out = new ArrayList<>();
        forEachProseLine((number, line) -> {
            Matcher definition = REFERENCE_DEFINITION.matcher(line);
            if (definition.matches()) out.add(new Link(number, definition.group(1)));
            Matcher m = INLINE_LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (m.find()) out.add(new Link(number, m.group(1)));
        });
        return out;
    }

    /** The anchors GitHub gives this file's headings (duplicates get -1, -2, ...), plus explicit HTML anchors. */
    Set<String> anchors() {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        forEachProseLine((number, line) -> {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                out.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) out.add(a.group(1));
        });
        return out;
    }

    /** Fenced code blocks in file order. */
    List<Block> blocks() {
        List<Block> out = new ArrayList<>();
        String fence = null;
        String language = "";
        int start = 0;
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher f = FENCE.matcher(line);
            if (fence == null && f.matches()) {
                fence = f.group(1);
                language = f.group(2).toLowerCase(Locale.ROOT);
                start = i + 1;
                text.setLength(0);
            } else if (fence != null && closes(line, fence)) {
                out.add(new Block(language, start, text.toString()));
                fence = null;
            } else if (fence != null) {
                text.append(line).append('\n');
            }
        }
        return out;
    }

    /** GitHub's heading slug: markup dropped, lower case, only letters, digits, '-', '_' and spaces kept, spaces to '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replace("`", "")
                .replace("*", "");
        StringBuilder out = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') out.append('-');
            else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') out.appendCodePoint(c);
        });
        return out.toString();
    }

    /** A closing fence: the opening fence's character, at least as many, nothing else. */
    private static boolean closes(String line, String fence) {
        String s = line.strip();
        return s.length() >= fence.length() && s.chars().allMatch(c -> c == fence.charAt(0));
    }

    private interface LineVisitor {
        void visit(int number, String line);
    }

    private void forEachProseLine(LineVisitor visitor) {
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher f = FENCE.matcher(line);
            if (fence == null && f.matches()) fence = f.group(1);
            else if (fence != null && closes(line, fence)) fence = null;
            else if (fence == null) visitor.visit(i + 1, line);
        }
    }
}
