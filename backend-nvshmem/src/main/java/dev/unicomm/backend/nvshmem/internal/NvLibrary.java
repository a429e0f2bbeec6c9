package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendSettings;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.Loader;

/**
 * Finds and loads the native pieces, in order, stopping at the first that is missing:
 * the JNI shim (always in the linux-x86_64 natives jar), the NVIDIA driver ({@code libcuda.so.1}), our CUDA ops library
 * (in that jar when it was built with nvcc; or {@code -Dunicomm.nvshmem.ops}), NVSHMEM's host
 * library ({@code libnvshmem_host.so.3}: {@code -Dunicomm.nvshmem.home}, {@code UNICOMM_NVSHMEM_HOME},
 * {@code NVSHMEM_HOME}, a pip-installed {@code nvidia-nvshmem-cu13/cu12} under a site-packages
 * directory, else the loader's search path), and at least one CUDA device. Runs once per process.
 */
public final class NvLibrary {
    static final String HOST_LIB = "libnvshmem_host.so.3";
    private static final String OPS_RESOURCE = "linux-x86_64/libunicomm_nvshmem_ops.so";
    private static final String OPS_STATUS = "linux-x86_64/ops-build.txt";

    private NvLibrary() {}

    /** Probed once per process, on first use (native libraries load once; the visible devices are fixed at start). */
    private static final class Loaded {
        static final Availability AVAILABILITY = probe(System.getenv());
    }

    /** Whether every native piece loaded and a CUDA device is visible; else the cause (Throwable kept) and the fix. Never throws. */
    public static Availability availability() {
        return Loaded.AVAILABILITY;
    }

    /** The CUDA devices this process sees; call only when {@link #availability()} is available. */
    public static int deviceCount() {
        return NvOps.cudaProbe()[0];
    }

    private static Availability probe(Map<String, String> env) {
        try {
            return load(env);
        } catch (Throwable t) {
            return Availability.no(
                    "probing the NVSHMEM backend failed: " + t, t, "report this as a bug in backend-nvshmem");
        }
    }

    private static Availability load(Map<String, String> env) {
        try {
            Loader.load(NvshmemShim.class);
        } catch (Throwable t) {
            return Availability.no(
                    "the backend's JNI library did not load: " + t,
                    t,
                    "depend on backend-nvshmem-platform, or put backend-nvshmem-<version>-linux-x86_64.jar next to backend-nvshmem on the class path "
                            + "(it holds dev/unicomm/backend/nvshmem/internal/linux-x86_64/libjniNvshmemShim.so)"
                            + see("nvshmem-nvshmem-not-found"));
        }
        if (NvshmemShim.ucn_probe_driver() != 0)
            return Availability.no(
                    "the NVIDIA driver is not installed here: " + NvOps.text(NvshmemShim.ucn_load_error()),
                    "run on a machine with an NVIDIA GPU and its driver (libcuda.so.1)"
                            + see("nvshmem-nvidia-driver-not-installed"));
        String ops = setting("nvshmem.ops", env);
        if (ops == null) {
            File f = extract();
            if (f == null)
                return Availability.no(
                        "this backend-nvshmem natives jar has no CUDA ops library (" + buildStatus() + ")",
                        "rebuild backend-nvshmem where nvcc and NVSHMEM are present (pip install nvidia-nvshmem-cu13), "
                                + "or point -Dunicomm.nvshmem.ops at a libunicomm_nvshmem_ops.so"
                                + see("nvshmem-no-cuda-ops-library"));
            ops = f.getAbsolutePath();
        }
        String host = findHostLibrary(env);
        if (NvshmemShim.ucn_load(host == null ? "" : host, ops) != 0)
            return Availability.no(
                    "cannot load NVSHMEM: " + NvOps.text(NvshmemShim.ucn_load_error())
                            + (host == null
                                    ? " (no NVSHMEM found in -Dunicomm.nvshmem.home, UNICOMM_NVSHMEM_HOME, NVSHMEM_HOME or a pip site-packages; tried the loader's search path)"
                                    : ""),
                    "pip install nvidia-nvshmem-cu13 (found under site-packages/nvidia/nvshmem/lib), or set -Dunicomm.nvshmem.home "
                            + "(or UNICOMM_NVSHMEM_HOME / NVSHMEM_HOME) to the NVSHMEM install whose lib/ holds "
                            + HOST_LIB
                            + ", or add that lib/ to LD_LIBRARY_PATH" + see("nvshmem-nvshmem-not-found"));
        int[] cuda;
        try {
            cuda = NvOps.cudaProbe();
        } catch (RuntimeException e) {
            return Availability.no(
                    "CUDA does not work here: " + e.getMessage(),
                    e,
                    "check the NVIDIA driver (nvidia-smi) and CUDA_VISIBLE_DEVICES; the driver must support CUDA 13"
                            + see("nvshmem-no-cuda-device-visible"));
        }
        if (cuda[0] < 1)
            return Availability.no(
                    "no CUDA device is visible (CUDA_VISIBLE_DEVICES="
                            + env.getOrDefault("CUDA_VISIBLE_DEVICES", "unset") + ")",
                    "make a GPU visible to this process" + see("nvshmem-no-cuda-device-visible"));
        return Availability.yes();
    }

    /** The pointer to the troubleshooting page's section, appended to every fix. */
    private static String see(String anchor) {
        return "; see docs/troubleshooting.md#" + anchor;
    }

    /** {@code unicomm.KEY}, else {@code UNICOMM_KEY} in {@code env}: the settings lookup; blank counts as unset. */
    private static String setting(String key, Map<String, String> env) {
        String v = BackendSettings.from(env, System::getProperty).get(key);
        return v == null || v.isBlank() ? null : v;
    }

    private static File extract() {
        try {
            return Loader.cacheResource(NvshmemShim.class, OPS_RESOURCE);
        } catch (IOException e) {
            return null;
        }
    }

    private static String buildStatus() {
        // Through the class loader, like Loader: the file lives in the natives jar, not in this class's module.
        try {
            java.net.URL status = Loader.findResource(NvshmemShim.class, OPS_STATUS);
            if (status == null) return "no build status recorded (is the linux-x86_64 natives jar on the class path?)";
            try (InputStream in = status.openStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
        } catch (IOException e) {
            return "build status unreadable: " + e;
        }
    }

    /** The NVSHMEM host library to preload, or null to leave it to the loader's search path. */
    static String findHostLibrary(Map<String, String> env) {
        for (String home : new String[] {setting("nvshmem.home", env), env.get("NVSHMEM_HOME")}) {
            if (home == null || home.isBlank()) continue;
            for (Path p : List.of(Path.of(home, "lib", HOST_LIB), Path.of(home, HOST_LIB))) {
                if (Files.isRegularFile(p)) return p.toString();
            }
        }
        for (Path site : sitePackages(env)) {
            Path p = site.resolve("nvidia/nvshmem/lib").resolve(HOST_LIB);
            if (Files.isRegularFile(p)) return p.toString();
        }
        return null;
    }

    /** Python site-packages directories where pip puts nvidia-nvshmem-cu13. */
    static List<Path> sitePackages(Map<String, String> env) {
        List<Path> roots = new ArrayList<>();
        String pp = env.get("PYTHONPATH");
        if (pp != null) for (String s : pp.split(File.pathSeparator)) if (!s.isBlank()) roots.add(Path.of(s));
        List<Path> prefixes = new ArrayList<>();
        for (String v : new String[] {"VIRTUAL_ENV", "CONDA_PREFIX"})
            if (env.get(v) != null) prefixes.add(Path.of(env.get(v)));
        prefixes.add(Path.of(System.getProperty("user.home"), ".local"));
        prefixes.add(Path.of("/usr/local"));
        prefixes.add(Path.of("/usr"));
        prefixes.add(Path.of("/opt/conda"));
        for (Path opt : list(Path.of("/opt"))) prefixes.add(opt.resolve(".venv"));
        for (Path prefix : prefixes) {
            for (Path py : list(prefix.resolve("lib"))) {
                if (!py.getFileName().toString().startsWith("python3")) continue;
                roots.add(py.resolve("site-packages"));
                roots.add(py.resolve("dist-packages"));
            }
        }
        roots.add(Path.of("/usr/lib/python3/dist-packages"));
        return roots;
    }

    private static List<Path> list(Path dir) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) return out;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) out.add(p);
        } catch (IOException | SecurityException e) {
            // An unreadable directory just holds no candidates.
        }
        return out;
    }
}
