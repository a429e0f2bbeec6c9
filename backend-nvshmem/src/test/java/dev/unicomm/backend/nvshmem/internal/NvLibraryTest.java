package dev.unicomm.backend.nvshmem.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.api.NativeCallException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvLibraryTest {

    @Test
    void nvshmemHomeVariableFindsTheHostLibraryInLib(@TempDir Path home) throws IOException {
        Path lib = Files.createDirectories(home.resolve("lib")).resolve(NvLibrary.HOST_LIB);
        Files.writeString(lib, "not really a library");
        assertEquals(lib.toString(), NvLibrary.findHostLibrary(Map.of("NVSHMEM_HOME", home.toString())));
        assertEquals(lib.toString(), NvLibrary.findHostLibrary(Map.of("UNICOMM_NVSHMEM_HOME", home.toString())));
    }

    @Test
    void pipWheelInAVirtualEnvironmentIsFound(@TempDir Path venv) throws IOException {
        Path lib = Files.createDirectories(venv.resolve("lib/python3.12/site-packages/nvidia/nvshmem/lib"))
                .resolve(NvLibrary.HOST_LIB);
        Files.writeString(lib, "stand-in");
        assertEquals(lib.toString(), NvLibrary.findHostLibrary(Map.of("VIRTUAL_ENV", venv.toString())));
    }

    @Test
    void aHomeWithoutTheLibraryIsSkipped(@TempDir Path empty) {
        String found = NvLibrary.findHostLibrary(Map.of("NVSHMEM_HOME", empty.toString(), "HOME", empty.toString()));
        // Either nothing, or a real pip install elsewhere on this machine - never the empty home.
        if (found != null) assertFalse(found.startsWith(empty.toString()), found);
        else assertNull(found);
    }

    /**
     * The dlopen chain without a GPU: JNI shim -> NVSHMEM host library (found like the probe does)
     * -> our CUDA ops library; then a CUDA call fails for want of a driver and must come back as a
     * NativeCallException naming the call and the CUDA error.
     */
    @Test
    void opsLibraryLoadsWithoutAGpuAndCudaErrorsComeBackNamed() throws IOException {
        org.bytedeco.javacpp.Loader.load(NvshmemShim.class);
        var ops = NvshmemShim.class.getResource("linux-x86_64/libunicomm_nvshmem_ops.so");
        assumeTrue(ops != null, "this build has no CUDA ops library (nvcc or NVSHMEM missing at build time)");
        String host = NvLibrary.findHostLibrary(System.getenv());
        assumeTrue(host != null, "no pip-installed NVSHMEM here (pip install nvidia-nvshmem-cu13)");
        assumeTrue(
                NvshmemShim.ucn_probe_driver() != 0,
                "an NVIDIA driver is present: the driver-less error path cannot be seen");
        String path = org.bytedeco.javacpp.Loader.cacheResource(
                        NvshmemShim.class, "linux-x86_64/libunicomm_nvshmem_ops.so")
                .getAbsolutePath();
        assertEquals(0, NvshmemShim.ucn_load(host, path), () -> NvOps.text(NvshmemShim.ucn_load_error()));
        var e = assertThrows(NativeCallException.class, NvOps::cudaProbe);
        assertTrue(e.call().startsWith("cuda"), e.call());
        assertTrue(e.getMessage().contains("cudaError"), e.getMessage());
        assertTrue(e.code() != 0);
    }

    @Test
    void probeNeverThrowsAndExplainsItself() {
        var p = NvLibrary.availability();
        assertSame(p, NvLibrary.availability(), "probed once per process");
        if (p.available()) {
            assertTrue(NvLibrary.deviceCount() > 0, "an available probe saw " + NvLibrary.deviceCount() + " devices");
        } else {
            assertFalse(p.cause().isBlank(), "an unavailable probe names the cause");
            assertTrue(
                    p.fix().contains("see docs/troubleshooting.md#nvshmem-"),
                    "an unavailable probe names the fix and its page: " + p.fix());
            // The JNI shim links only libc: it must load on any Linux x86-64 machine.
            assertFalse(p.cause().startsWith("the backend's JNI library did not load"), p.cause());
        }
    }
}
