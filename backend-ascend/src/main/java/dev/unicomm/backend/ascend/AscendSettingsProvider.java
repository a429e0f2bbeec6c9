package dev.unicomm.backend.ascend;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.ArrayList;
import java.util.List;

/** The Ascend backend's settings (read by {@code internal.AscendSettings}, whose table says more). */
public final class AscendSettingsProvider implements SettingsProvider {
    @Override public List<Setting> settings() {
        List<Setting> out = new ArrayList<>(List.of(
                new Setting("ascend.acl.library", "libascendcl.so", "ACL runtime to dlopen (name or path)"),
                new Setting("ascend.shmem.library", "libshmem.so", "Ascend SHMEM library to dlopen"),
                new Setting("ascend.device", "local rank mod device count", "NPU this PE uses"),
                new Setting("ascend.heap.side", "device", "device: symmetric heap in NPU memory; host: in host memory"),
                new Setting("ascend.staging.size", "4M", "device bounce buffer for host-memory RMA operands (from the symmetric heap)"),
                new Setting("ascend.tls", "true", "TLS on Ascend SHMEM's config store"),
                new Setting("ascend.tls.info", "unset", "the whole tls_info string, as Ascend SHMEM documents it"),
                new Setting("ascend.tls.private.key.file", "unset", "file whose bytes are the config store's TLS private key"),
                new Setting("ascend.tls.private.key.password.file", "unset", "file holding that key's password")));
        for (String field : List.of("ca.path", "ca.files", "cert", "key", "key.password.file", "crl.path", "crl.files", "package.path"))
            out.add(new Setting("ascend.tls." + field, "unset", "one field of tls_info (instead of ascend.tls.info)"));
        return List.copyOf(out);
    }
}
