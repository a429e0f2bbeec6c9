package dev.unicomm.backend.rdma.internal.presets;

import org.bytedeco.javacpp.annotation.Platform;
import org.bytedeco.javacpp.annotation.Properties;
import org.bytedeco.javacpp.tools.Info;
import org.bytedeco.javacpp.tools.InfoMap;
import org.bytedeco.javacpp.tools.InfoMapper;

/**
 * JavaCPP configuration of the verbs shim ({@code src/main/native/ucv_shim.h}): the parser turns
 * the header into {@code dev.unicomm.backend.rdma.internal.VerbsShim}. The shim links nothing but
 * libc; it dlopens libibverbs itself, so loading the JNI library never fails for lack of rdma-core.
 */
@Properties(target = "dev.unicomm.backend.rdma.internal.VerbsShim",
        value = @Platform(value = "linux-x86_64", include = "ucv_shim.h"))
public class VerbsShimConfig implements InfoMapper {
    @Override public void map(InfoMap infoMap) {
        infoMap.put(new Info("UCV_SHIM_H").skip());
    }
}
