package dev.unicomm.core;

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
            throw e.getCause(); // the JVM reports it as it would for a plain 'java Main'
        }
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
