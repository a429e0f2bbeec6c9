package dev.unicomm.backend.ascend.internal.presets;

import org.bytedeco.javacpp.annotation.Platform;
import org.bytedeco.javacpp.annotation.Properties;
import org.bytedeco.javacpp.tools.Info;
import org.bytedeco.javacpp.tools.InfoMap;
import org.bytedeco.javacpp.tools.InfoMapper;

/**
 * JavaCPP configuration of the Ascend shim ({@code src/main/native/uca_shim.h}): the parser turns
 * the header into {@code dev.unicomm.backend.ascend.internal.AscendShim}. The shim links only
 * libc/libdl; it dlopens the ACL runtime and Ascend SHMEM itself, so the JNI library always loads.
 */
@Properties(target = "dev.unicomm.backend.ascend.internal.AscendShim",
        value = @Platform(value = "linux-x86_64", include = "uca_shim.h", link = "dl"))
public class AscendShimConfig implements InfoMapper {
    @Override public void map(InfoMap infoMap) {
        infoMap.put(new Info("UCA_SHIM_H").skip());
    }
}
