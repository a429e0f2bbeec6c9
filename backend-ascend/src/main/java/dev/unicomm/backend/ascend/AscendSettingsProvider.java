package dev.unicomm.backend.ascend;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The Ascend backend's settings (read by {@code internal.AscendSettings}, whose table says more). */
public final class AscendSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table("""
                ascend.acl.library                   | libascendcl.so              | ACL runtime to dlopen (name or path)
                ascend.shmem.library                 | libshmem.so                 | Ascend SHMEM library to dlopen
                ascend.device                        | local rank mod device count | NPU this PE uses
                ascend.heap.side                     | device                      | device: symmetric heap in NPU memory; host: in host memory
                ascend.staging.size                  | 4M                          | device bounce buffer for host-memory RMA operands (from the symmetric heap)
                ascend.tls                           | true                        | TLS on Ascend SHMEM's config store
                ascend.tls.info                      | unset                       | the whole tls_info string, as Ascend SHMEM documents it
                ascend.tls.private.key.file          | unset                       | file whose bytes are the config store's TLS private key
                ascend.tls.private.key.password.file | unset                       | file holding that key's password
                ascend.tls.ca.path                   | unset                       | tls_info field tlsCaPath (instead of ascend.tls.info)
                ascend.tls.ca.files                  | unset                       | tls_info field tlsCaFile, a comma list
                ascend.tls.cert                      | unset                       | tls_info field tlsCert
                ascend.tls.key                       | unset                       | tls_info field tlsPk
                ascend.tls.key.password.file         | unset                       | tls_info field tlsPkPwd
                ascend.tls.crl.path                  | unset                       | tls_info field tlsCrlPath
                ascend.tls.crl.files                 | unset                       | tls_info field tlsCrlFile, a comma list
                ascend.tls.package.path              | unset                       | tls_info field packagePath
                """);
    }
}
