package dev.unicomm.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A command's {@code --cp}: the entries become visible to {@link java.util.ServiceLoader} through the
 * thread's context class loader while the command runs. Entries already on the JVM's class path (as
 * {@code bin/unicomm} puts them, ahead of unicomm's own jars) are not loaded a second time, so a
 * backend is never found twice under two class loaders.
 */
final class ExtraClassPath implements AutoCloseable {
    private final ClassLoader previous;
    private final URLClassLoader loader;

    private ExtraClassPath(ClassLoader previous, URLClassLoader loader) {
        this.previous = previous;
        this.loader = loader;
    }

    /** Puts {@code classpath} (may be {@code null}) on the context class loader until {@link #close()}. */
    static ExtraClassPath install(String classpath) {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        List<URL> urls = urls(notYetLoaded(classpath));
        URLClassLoader loader = urls.isEmpty() ? null : new URLClassLoader(urls.toArray(URL[]::new), previous);
        if (loader != null) Thread.currentThread().setContextClassLoader(loader);
        return new ExtraClassPath(previous, loader);
    }

    /** The entries of {@code classpath} that are not on this JVM's class path already. */
    static List<String> notYetLoaded(String classpath) {
        if (classpath == null || classpath.isBlank()) return List.of();
        Set<Path> onPath = Arrays.stream(
                        System.getProperty("java.class.path", "").split(File.pathSeparator))
                .filter(e -> !e.isBlank())
                .map(e -> Path.of(e).toAbsolutePath().normalize())
                .collect(Collectors.toSet());
        List<String> out = new ArrayList<>();
        for (String e : classpath.split(File.pathSeparator)) {
            if (!e.isBlank() && !onPath.contains(Path.of(e).toAbsolutePath().normalize())) out.add(e);
        }
        return out;
    }

    private static List<URL> urls(List<String> entries) {
        List<URL> urls = new ArrayList<>();
        for (String e : entries) {
            try {
                urls.add(Path.of(e).toAbsolutePath().toUri().toURL());
            } catch (MalformedURLException ex) {
                throw new IllegalArgumentException("bad class path entry '" + e + "': " + ex.getMessage(), ex);
            }
        }
        return urls;
    }

    @Override
    public void close() {
        Thread.currentThread().setContextClassLoader(previous);
        if (loader != null) {
            try {
                loader.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
