package dev.unicomm.architecture.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Compiles the {@code java} blocks of Markdown files with javac, as docs/README.md describes: a block
 * that declares a top-level type is a source file; any other block is the body of
 * {@code void snippet(Communicator comm) throws Exception} with {@link #IMPORTS}. Each block gets its
 * own package, so two blocks may declare the same class name.
 */
final class SnippetCompiler {
    static final List<String> IMPORTS = List.of(
            "dev.unicomm.api.*",
            "java.lang.foreign.*",
            "java.nio.*",
            "java.util.*",
            "java.time.*",
            "java.util.concurrent.*");

    private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
            "(?m)^((public|final|abstract|sealed|non-sealed)\\s+)*(class|interface|record|enum)\\s+\\w+");

    /** A block and where it came from. */
    record Snippet(String origin, int line, String code) {}

    /** The {@code java} blocks of one Markdown file. */
    static List<Snippet> javaBlocks(Path root, Path file) {
        List<Snippet> out = new ArrayList<>();
        String origin = root.relativize(file.toAbsolutePath().normalize()).toString();
        for (Markdown.Block b : Markdown.read(file).blocks())
            if (b.language().equals("java")) out.add(new Snippet(origin, b.line(), b.text()));
        return out;
    }

    /** Compiles all snippets in one javac run; returns one line per error ({@code file:line: message}), empty when all compile. */
    static List<String> compile(List<Snippet> snippets, String classpath) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null)
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK, not a JRE");
        List<Source> sources = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) sources.add(Source.of(snippets.get(i), "docsnippet.s" + i));
        Path out;
        try {
            out = Files.createTempDirectory("doc-snippets");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options =
                List.of("-classpath", classpath, "-d", out.toString(), "-proc:none", "-Xlint:none", "-nowarn");
        try {
            javac.getTask(null, null, diagnostics, options, null, sources).call();
        } finally {
            removeTree(out); // only whether they compile matters
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) continue;
            String where = d.getSource() instanceof Source s ? s.where(d.getLineNumber()) : "javac";
            errors.add(
                    where + ": " + d.getMessage(Locale.ROOT).lines().findFirst().orElse(""));
        }
        return errors;
    }

    private static void removeTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the snippets' class folder " + dir, e);
        }
    }

    /** The class path the tests run with (surefire passes it in a property when it uses a manifest-only jar). */
    static String testClasspath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /** One snippet as a compilation unit, remembering how its lines map back to the Markdown file. */
    private static final Pattern OWN_PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;");

    private static final class Source extends SimpleJavaFileObject {
        private final Snippet snippet;
        private final String code;
        private final int prefixLines;

        private Source(Snippet snippet, String code, int prefixLines, String packageName) {
            super(URI.create("string:///" + packageName.replace('.', '/') + "/Snippet.java"), Kind.SOURCE);
            this.snippet = snippet;
            this.code = code;
            this.prefixLines = prefixLines;
        }

        static Source of(Snippet s, String packageName) {
            // A whole source file with its own package (a class a reader copies into a project) compiles as it is.
            java.util.regex.Matcher own = OWN_PACKAGE.matcher(s.code());
            if (own.find() && TOP_LEVEL_TYPE.matcher(s.code()).find()) return new Source(s, s.code(), 0, own.group(1));
            String header = "package " + packageName + ";\n";
            if (TOP_LEVEL_TYPE.matcher(s.code()).find()) return new Source(s, header + s.code(), 1, packageName);
            StringBuilder imports = new StringBuilder();
            for (String i : IMPORTS) imports.append("import ").append(i).append(";\n");
            List<String> lines = s.code().lines().toList();
            int leading = 0;
            while (leading < lines.size()
                    && (lines.get(leading).startsWith("import ")
                            || lines.get(leading).isBlank())) leading++;
            for (String l : lines.subList(0, leading)) imports.append(l).append('\n');
            String head = header + imports + "class Snippet { void snippet(Communicator comm) throws Exception {\n";
            String body = String.join("\n", lines.subList(leading, lines.size()));
            int prefix = (int) head.lines().count() - leading;
            return new Source(s, head + body + "\n}}\n", prefix, packageName);
        }

        /** {@code origin:line} of a javac line number (the opening fence is line {@code snippet.line}). */
        String where(long javacLine) {
            return snippet.origin() + ":" + (snippet.line() + Math.max(1, javacLine - prefixLines));
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }

        /** A snippet's public class may have any name: javac's file-name rule does not apply to these sources. */
        @Override
        public boolean isNameCompatible(String simpleName, Kind kind) {
            return kind == Kind.SOURCE;
        }
    }
}
