package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --csv FILE} for the bench commands: the rows once more, as CSV, after the table. */
public final class CsvOption {
    @Option(names = "--csv", paramLabel = "<csv>", description = "Also write the rows as CSV to this file.")
    Path file;

    boolean wanted() {
        return file != null;
    }

    /** With {@code --csv}: writes {@code lines} (header first), creating missing folders, and says where on stdout. */
    void write(List<String> lines) throws IOException {
        if (file == null) return;
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.write(file, lines);
        System.out.println("wrote " + file);
    }
}
