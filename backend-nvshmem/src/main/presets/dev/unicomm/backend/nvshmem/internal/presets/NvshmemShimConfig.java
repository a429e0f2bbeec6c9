package dev.unicomm.backend.nvshmem.internal.presets;

import org.bytedeco.javacpp.annotation.Platform;
import org.bytedeco.javacpp.annotation.Properties;
import org.bytedeco.javacpp.tools.InfoMap;
import org.bytedeco.javacpp.tools.InfoMapper;

/**
 * JavaCPP presets: parse {@code ucn_shim.h} (src/main/native) into {@code NvshmemShim}. The JNI
 * library links only libc/libdl; NVSHMEM and CUDA are opened with dlopen by the shim.
 */
@Properties(target = "dev.unicomm.backend.nvshmem.internal.NvshmemShim",
        value = @Platform(value = "linux-x86_64", include = "ucn_shim.h", link = "dl"))
public class NvshmemShimConfig implements InfoMapper {
    @Override public void map(InfoMap infoMap) {
        // Nothing to rename: the C API uses only primitives, pointers to them and C strings.
    }
}
