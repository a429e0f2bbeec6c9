package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.NativeCallException;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendSettings;
import java.nio.charset.StandardCharsets;

/**
 * Loads the shim and, through it, libibverbs; keeps why that failed. Every native call of the
 * backend goes through {@link VerbsShim}; this class turns its error codes into exceptions.
 */
public final class Verbs {
    /** Setting naming another libibverbs to load (default {@code libibverbs.so.1}). */
    public static final String LIBRARY_PROPERTY = "unicomm.rdma.libibverbs";
    /** {@link #LIBRARY_PROPERTY} without the prefix, as the settings lookup takes it. */
    public static final String LIBRARY_KEY = "rdma.libibverbs";

    private Verbs() {}

    /** Loaded once per process, on first use (a JNI library cannot be unloaded or loaded again). */
    private static final class Loaded {
        static final Availability AVAILABILITY = load();
    }

    /** Whether the JNI shim and libibverbs loaded; the cause (with the loader's Throwable) and the fix if not. Never throws. */
    public static Availability availability() {
        return Loaded.AVAILABILITY;
    }

    private static Availability load() {
        try {
            org.bytedeco.javacpp.Loader.load(VerbsShim.class);
        } catch (Throwable t) {
            return Availability.no(
                    "the backend's JNI library (jniVerbsShim) did not load: " + t,
                    t,
                    "use backend-rdma on linux-x86_64 with JDK 25 and --enable-native-access=ALL-UNNAMED, with its natives jar on the class path "
                            + "(depend on backend-rdma-platform, which brings backend-rdma-<version>-linux-x86_64.jar)"
                            + see("rdma-verbs-library-not-found"));
        }
        byte[] err = new byte[1024];
        String path = BackendSettings.fromEnvironment().get(LIBRARY_KEY, "");
        int rc = VerbsShim.ucv_load(path, err, err.length);
        if (rc != 0) {
            return Availability.no(
                    text(err),
                    "install rdma-core's verbs library and providers (Debian/Ubuntu: apt-get install -y libibverbs1 ibverbs-providers rdma-core;"
                            + " RHEL/Fedora: dnf install -y rdma-core libibverbs)"
                            + see("rdma-verbs-library-not-found"));
        }
        return Availability.yes();
    }

    /** The pointer to the troubleshooting page's section, appended to every fix. */
    static String see(String anchor) {
        return "; see docs/troubleshooting.md#" + anchor;
    }

    /** Throws if libibverbs is not usable, with the cause and the fix (the loader's Throwable chained). */
    public static void require() {
        Availability a = availability();
        if (!a.available())
            throw new IllegalStateException(
                    "RDMA verbs are not available: " + a.cause() + " — fix: " + a.fix(), a.error());
    }

    /** The calling thread's last shim error. */
    public static String lastError() {
        byte[] buf = new byte[512];
        VerbsShim.ucv_last_error(buf, buf.length);
        return text(buf);
    }

    /** {@code rc < 0} becomes a {@link NativeCallException} naming {@code call} and the shim's error text. */
    public static int check(int rc, String call) {
        if (rc < 0) throw new NativeCallException(call, rc, lastError());
        return rc;
    }

    /** A zero handle becomes a {@link NativeCallException}. */
    public static long checkHandle(long handle, String call) {
        if (handle == 0) throw new NativeCallException(call, 0, lastError());
        return handle;
    }

    static String text(byte[] nulTerminated) {
        int n = 0;
        while (n < nulTerminated.length && nulTerminated[n] != 0) n++;
        return new String(nulTerminated, 0, n, StandardCharsets.UTF_8);
    }
}
