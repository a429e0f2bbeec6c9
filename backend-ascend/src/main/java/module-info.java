/**
 * unicomm's Huawei Ascend backend: Ascend SHMEM (aclshmem) and the ACL runtime, bound with
 * JavaCPP over a C shim that loads both libraries lazily. Settings: see {@link dev.unicomm.backend.ascend.AscendBackendProvider}.
 */
module dev.unicomm.backend.ascend {
    requires dev.unicomm.api;
    requires org.bytedeco.javacpp;

    exports dev.unicomm.backend.ascend;

    opens dev.unicomm.backend.ascend.internal to
            org.bytedeco.javacpp;

    provides dev.unicomm.spi.CommBackendProvider with
            dev.unicomm.backend.ascend.AscendBackendProvider;
    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.backend.ascend.AscendSettingsProvider;
}
