package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.NativeCallException;
import dev.unicomm.backend.ascend.internal.AscendNatives.LoadResult;
import dev.unicomm.spi.Availability;

/**
 * Finds out whether the Ascend stack works here, step by step, keeping the first root cause (with
 * its Throwable where there is one). The JNI shim loads once per process ({@link AscendNatives#jniFailure()});
 * the rest is asked afresh, because the answer depends on the settings (library paths, device).
 */
public final class AvailabilityProbe {
    private AvailabilityProbe() {}

    static final String CANN_ENV = "source /usr/local/Ascend/ascend-toolkit/set_env.sh";

    /** Library, then runtime, then at least one NPU. Never throws. */
    public static Availability probe(AscendSettings s) {
        LoadResult load = AscendNatives.load(s.aclLibrary(), s.shmemLibrary());
        Availability libs = explain(load, s);
        if (libs != null) return libs;
        try {
            AscendNatives.aclInit();
        } catch (NativeCallException e) {
            return Availability.no(
                    "ACL runtime does not start: " + e.getMessage(),
                    e,
                    "check the Ascend driver and firmware install ('npu-smi info' must list the NPUs) and that " + "'"
                            + CANN_ENV + "' was sourced" + see("ascend-no-npu-visible"));
        }
        int count;
        try {
            count = AscendNatives.deviceCount();
        } catch (NativeCallException e) {
            return Availability.no(
                    "Ascend driver: " + e.getMessage(),
                    e,
                    "install the Ascend NPU driver ('npu-smi info' must list the NPUs)" + see("ascend-no-npu-visible"));
        }
        if (count < 1)
            return Availability.no(
                    "no Ascend NPU is visible to this process (aclrtGetDeviceCount = 0)",
                    "check 'npu-smi info', the driver install and ASCEND_RT_VISIBLE_DEVICES"
                            + see("ascend-no-npu-visible"));
        if (s.device() >= count)
            return Availability.no(
                    AscendSettings.DEVICE + "=" + s.device() + " but only " + count + " NPU(s) are visible",
                    "set " + AscendSettings.DEVICE + " to a device in 0.." + (count - 1) + " or leave it unset"
                            + see("ascend-no-npu-visible"));
        return Availability.yes();
    }

    /** The pointer to the troubleshooting page's section, appended to every fix. */
    private static String see(String anchor) {
        return "; see docs/troubleshooting.md#" + anchor;
    }

    /** A cause and fix for a failed load, or {@code null} if the libraries are bound. */
    static Availability explain(LoadResult load, AscendSettings s) {
        return switch (load.status()) {
            case OK -> null;
            case JNI_UNAVAILABLE ->
                Availability.no(
                        "the JNI shim (libjniAscendShim) does not load here: " + load.message(),
                        AscendNatives.jniFailure(),
                        "backend-ascend ships its shim for linux-x86_64 only, in backend-ascend-<version>-linux-x86_64.jar (depend on "
                                + "backend-ascend-platform to get it): run on linux-x86_64 with that jar on the class path, or rebuild the module on this platform"
                                + see("ascend-acl-runtime-not-found"));
            case ACL_MISSING ->
                Availability.no(
                        "ACL runtime not found: " + load.message(),
                        "install the CANN toolkit and run '" + CANN_ENV
                                + "' (puts libascendcl.so on LD_LIBRARY_PATH), or set -D" + AscendSettings.ACL_LIBRARY
                                + " / UNICOMM_ASCEND_ACL_LIBRARY to the library's path"
                                + see("ascend-acl-runtime-not-found"));
            case SHMEM_MISSING ->
                Availability.no(
                        "Ascend SHMEM library not found: " + load.message(),
                        "install Ascend SHMEM (gitcode.com/cann/shmem) and source the set_env.sh of its install directory "
                                + "(puts libshmem.so on LD_LIBRARY_PATH), or set -D" + AscendSettings.SHMEM_LIBRARY
                                + " / UNICOMM_ASCEND_SHMEM_LIBRARY to the library's path"
                                + see("ascend-acl-runtime-not-found"));
            case SYMBOLS_MISSING ->
                Availability.no(
                        "incompatible libraries: " + load.message(),
                        "use an Ascend SHMEM release with the aclshmem/aclshmemx host API (aclshmemx_init_attr, *_on_stream) "
                                + "and a CANN runtime with aclrtSynchronizeStreamWithTimeout"
                                + see("ascend-acl-runtime-not-found"));
            case CONFLICT ->
                Availability.no(
                        load.message(),
                        "one process binds one ACL / Ascend SHMEM pair: use the same " + AscendSettings.ACL_LIBRARY
                                + " and " + AscendSettings.SHMEM_LIBRARY + " everywhere in this JVM"
                                + see("ascend-acl-runtime-not-found"));
        };
    }
}
