package dev.unicomm.backend.ucx.endpoints;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * Sets a {@code UCX_*} variable in this process's environment ({@code setenv}): UCX reads the environment at
 * every {@code ucp_config_read}, so endpoints opened afterwards use it. Tests only; they restore it after.
 */
final class UcxEnv {
    private UcxEnv() {}

    private static final Linker C = Linker.nativeLinker();
    private static final MethodHandle SETENV = C.downcallHandle(
            C.defaultLookup().find("setenv").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle UNSETENV = C.downcallHandle(
            C.defaultLookup().find("unsetenv").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** Sets {@code name} to {@code value}, or removes it when {@code value} is null. */
    static void set(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            int rc = value == null
                    ? (int) UNSETENV.invokeExact(a.allocateFrom(name))
                    : (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 1);
            if (rc != 0) throw new IllegalStateException("setenv " + name + " failed");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
