package dev.unicomm.launch;

import dev.unicomm.api.CommException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * What {@code unicomm run} starts in every rank: {@code RankMain userMainClass args...}. It first
 * ties the rank to its launcher ({@link LauncherLink}: the rank exits when the launcher is gone, and
 * the job's TLS key arrives through the pipe instead of a file), then runs the user's {@code main}
 * exactly as {@code java} would, including its exceptions.
 */
public final class RankMain {
    private RankMain() {}

    public static void main(String[] args) throws Throwable {
        if (args.length == 0) throw new IllegalArgumentException("usage: RankMain <main class> [args...]");
        LauncherLink.attachIfLaunched();
        Class<?> main = Class.forName(args[0], true, ClassLoader.getSystemClassLoader());
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            invokeMain(main, rest);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof CommException && !verbose()) {
                // The API's exceptions say all there is (which rank failed, which wait timed out); a rank that fails
                // because another one did would only add dozens of frames per rank to the job's output.
                String me = "rank " + System.getenv().getOrDefault("UNICOMM_RANK", "?") + " failed: ";
                String message = String.valueOf(t.getMessage());
                if (message.startsWith(me))
                    message = message.substring(me.length()); // its own failure: say "rank 2 failed" once
                System.err.println("[unicomm] " + me + t.getClass().getSimpleName() + ": " + message
                        + " (UNICOMM_VERBOSE=1 prints the stack trace)");
                System.exit(1);
            }
            throw t; // the JVM reports it as it would for a plain 'java Main'
        }
    }

    /** {@code UNICOMM_VERBOSE=1} (set by {@code unicomm --verbose}) keeps every stack trace. */
    static boolean verbose() {
        String v = System.getenv("UNICOMM_VERBOSE");
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
    }

    /** {@code static main(String[])}, else {@code static main()}, else an instance {@code main} (Java 25 launch protocol). */
    private static void invokeMain(Class<?> c, String[] args) throws ReflectiveOperationException {
        Method m;
        boolean withArgs = true;
        try {
            m = c.getDeclaredMethod("main", String[].class);
        } catch (NoSuchMethodException e) {
            m = c.getDeclaredMethod("main");
            withArgs = false;
        }
        m.setAccessible(true);
        Object target = null;
        if (!Modifier.isStatic(m.getModifiers())) {
            var ctor = c.getDeclaredConstructor();
            ctor.setAccessible(true);
            target = ctor.newInstance();
        }
        if (withArgs) m.invoke(target, (Object) args);
        else m.invoke(target);
    }
}
