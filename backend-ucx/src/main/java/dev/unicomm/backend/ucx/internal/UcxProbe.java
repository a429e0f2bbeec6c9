package dev.unicomm.backend.ucx.internal;

import dev.unicomm.spi.Availability;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Whether UCX really works here: loads libucp, reads its version, creates a context and a worker and
 * destroys them. The result is kept for the life of the process (a probe costs a device scan).
 */
public final class UcxProbe {
    private UcxProbe() {}

    static final String FIX_INSTALL =
            "apt-get install libucx0 (Debian/Ubuntu) or install UCX >= 1.13 so that libucp.so.0 is on the "
                    + "loader path (LD_LIBRARY_PATH), or name it with unicomm.ucx.library / UNICOMM_UCX_LIBRARY; see docs/backends/ucx.md";
    /** The library the backend binds unless {@code unicomm.ucx.library} names another. */
    public static final String DEFAULT_LIBRARY = Ucp.LIBRARY;

    private static final java.util.Map<String, Availability> PROBED = new java.util.concurrent.ConcurrentHashMap<>();
    private static volatile String version = "?";
    private static final java.util.Map<String, String> CONTEXT_INFO = new java.util.concurrent.ConcurrentHashMap<>();

    /** Whether {@code library} (a soname or a path) loads and makes a working context and worker. Never throws. */
    public static Availability availability(String library) {
        return PROBED.computeIfAbsent(library, UcxProbe::probe);
    }

    /** The raw {@code ucp_context_print_info} text of the probe's context, empty before a successful probe. */
    public static String contextInfo(String library) {
        availability(library);
        return CONTEXT_INFO.getOrDefault(library, "");
    }

    /** The network devices (tcp and verbs) UCX found, as {@code ucp_context_print_info} lists them; empty when unavailable. */
    public static java.util.List<String> networkDevices(String library) {
        return UcxTransports.networkDevices(contextInfo(library));
    }

    /** The loaded libucp's version ({@code ucp_get_version}), {@code ?} before a successful probe. */
    public static String version() {
        return version;
    }

    private static Availability probe(String library) {
        Ucp ucp;
        try {
            ucp = Ucp.get(library);
        } catch (
                Throwable t) { // IllegalArgumentException from libraryLookup, UnsatisfiedLinkError for a missing symbol
            return Availability.no(library + " not found or unusable (" + t.getMessage() + ")", t, FIX_INSTALL);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_INT, 3);
            ucp.version(v, v.asSlice(4), v.asSlice(8));
            int major = v.getAtIndex(ValueLayout.JAVA_INT, 0), minor = v.getAtIndex(ValueLayout.JAVA_INT, 1);
            version = major + "." + minor + "." + v.getAtIndex(ValueLayout.JAVA_INT, 2);
            if (major != UcpAbi.API_MAJOR || minor < UcpAbi.API_MINOR)
                return Availability.no(
                        "libucp " + version + " is older than the UCX 1.13 ABI this backend binds", FIX_INSTALL);
        } catch (Throwable t) {
            return Availability.no("ucp_get_version failed: " + t, t, FIX_INSTALL);
        }
        try {
            UcxWorker probe = UcxWorker.open(
                    library,
                    "unicomm-ucx-probe",
                    0,
                    1,
                    true,
                    UcpAbi.FEATURE_TAG | UcpAbi.FEATURE_RMA | UcpAbi.FEATURE_AMO64,
                    java.util.Map.of());
            try {
                CONTEXT_INFO.put(library, probe.contextInfo());
            } finally {
                probe.close();
            }
            return Availability.yes(
                    "UCX " + version + ", transports: " + UcxTransports.summary(CONTEXT_INFO.get(library)));
        } catch (Throwable t) {
            return Availability.no(
                    "UCX " + version + " is installed but creating a context and worker failed: " + t.getMessage(),
                    t,
                    "check UCX_TLS / UCX_NET_DEVICES (ucx_info -d lists the transports UCX sees); see docs/backends/ucx.md");
        }
    }
}
