package dev.unicomm.launch;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the launcher checks before it starts any rank, so that a mistyped class path entry or main
 * class is one line from the launcher instead of a {@code ClassNotFoundException} on every rank.
 */
final class Preflight {
    private Preflight() {}

    /** Most jars one {@code dir/*} entry may add to the check's class loader. */
    private static final int MAX_WILDCARD_JARS = 10_000;

    /** @throws IllegalArgumentException naming the missing entry, the class that cannot be loaded or its missing main */
    static void check(JobSpec spec) {
        List<URL> urls = new ArrayList<>();
        for (String entry : spec.classpath()) urls.addAll(urlsOf(entry));
        String main = spec.mainClass();
        // Not initialised: no static code of the user's runs in the launcher.
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Class<?> c;
            try {
                c = Class.forName(main, false, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("main class " + main + " is not on the ranks' class path ("
                        + describe(spec.classpath()) + "); check its spelling and --cp");
            } catch (LinkageError e) {
                throw new IllegalArgumentException("main class " + main + " cannot be loaded: " + e);
            }
            if (mainMethod(c) == null)
                throw new IllegalArgumentException(
                        "class " + main + " has no main method: declare 'public static void main(String[] args)'");
        } catch (LinkageError e) {
            throw new IllegalArgumentException("main class " + main + " cannot be loaded: " + e);
        } catch (IOException e) {
            // closing the check's loader failed: nothing to report
        }
    }

    /** {@code main(String[])} or {@code main()}, as {@link RankMain} looks them up (Java 25 launch protocol); null if neither. */
    private static Method mainMethod(Class<?> c) {
        for (Class<?>[] params : List.of(new Class<?>[] {String[].class}, new Class<?>[0])) {
            try {
                Method m = c.getDeclaredMethod("main", params);
                if (!Modifier.isPrivate(m.getModifiers())) return m;
            } catch (NoSuchMethodException e) {
                // try the next form
            }
        }
        return null;
    }

    /** The URLs of one class path entry; {@code dir/*} means the jars in dir, as for {@code java -cp}. */
    private static List<URL> urlsOf(String entry) {
        boolean wildcard = entry.equals("*") || entry.endsWith(File.separator + "*");
        Path path = Path.of(wildcard ? entry.substring(0, entry.length() - 1) + "." : entry);
        if (!Files.exists(path))
            throw new IllegalArgumentException("class path entry " + entry + " does not exist"
                    + (path.isAbsolute() ? "" : " (relative to " + Path.of("").toAbsolutePath() + ")"));
        try {
            if (!wildcard) return List.of(path.toUri().toURL());
            List<URL> jars = new ArrayList<>();
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(path, "*.{jar,JAR}")) {
                for (Path jar : dir) {
                    if (jars.size() >= MAX_WILDCARD_JARS) break;
                    jars.add(jar.toUri().toURL());
                }
            }
            return jars;
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(
                    "class path entry " + entry + " is not a usable path: " + e.getMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException("class path entry " + entry + " cannot be read: " + e.getMessage());
        }
    }

    /** The last few entries (where --cp and the jar go) and how many there are: the whole path can be hundreds of jars. */
    private static String describe(List<String> cp) {
        int shown = Math.min(3, cp.size());
        String tail = String.join(File.pathSeparator, cp.subList(cp.size() - shown, cp.size()));
        return cp.size() == shown ? tail : cp.size() + " entries, ending ..." + File.pathSeparator + tail;
    }
}
