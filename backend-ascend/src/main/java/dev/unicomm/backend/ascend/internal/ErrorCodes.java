package dev.unicomm.backend.ascend.internal;

import java.util.Map;

/** Names of the ACL runtime and Ascend SHMEM status codes that unicomm reports (values of the public headers). */
final class ErrorCodes {
    private ErrorCodes() {}

    private static final Map<Integer, String> ACL = Map.ofEntries(
            Map.entry(100000, "ACL_ERROR_INVALID_PARAM"),
            Map.entry(100001, "ACL_ERROR_UNINITIALIZE"),
            Map.entry(100002, "ACL_ERROR_REPEAT_INITIALIZE"),
            Map.entry(107000, "ACL_ERROR_RT_PARAM_INVALID"),
            Map.entry(107001, "ACL_ERROR_RT_INVALID_DEVICEID"),
            Map.entry(107002, "ACL_ERROR_RT_CONTEXT_NULL"),
            Map.entry(107003, "ACL_ERROR_RT_STREAM_CONTEXT"),
            Map.entry(207000, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"),
            Map.entry(207001, "ACL_ERROR_RT_MEMORY_ALLOCATION"),
            Map.entry(507033, "ACL_ERROR_RT_DEV_SETUP_ERROR"),
            Map.entry(507046, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"),
            Map.entry(507899, "ACL_ERROR_RT_DRV_INTERNAL_ERROR"),
            Map.entry(507901, "ACL_ERROR_RT_SOCKET_CLOSE"));

    private static final Map<Integer, String> SHMEM = Map.ofEntries(
            Map.entry(-1, "ACLSHMEM_INVALID_PARAM"),
            Map.entry(-2, "ACLSHMEM_INVALID_VALUE"),
            Map.entry(-3, "ACLSHMEM_SMEM_ERROR"),
            Map.entry(-4, "ACLSHMEM_INNER_ERROR"),
            Map.entry(-5, "ACLSHMEM_NOT_INITED"),
            Map.entry(-6, "ACLSHMEM_BOOTSTRAP_ERROR"),
            Map.entry(-7, "ACLSHMEM_TIMEOUT_ERROR"),
            Map.entry(-8, "ACLSHMEM_MALLOC_FAILED"),
            Map.entry(-9, "ACLSHMEM_DL_FUNC_FAILED"),
            Map.entry(-10, "ACLSHMEM_INNER_TIMEOUT"),
            Map.entry(-11, "ACLSHMEM_UNDER_API_UNLOAD"),
            Map.entry(-100, "ACLSHMEM_NOT_SUPPORTED"));

    /** ACL status (aclError) name. */
    static String acl(int code) {
        return ACL.getOrDefault(code, "aclError");
    }

    /** Ascend SHMEM status name. */
    static String shmem(int code) {
        return SHMEM.getOrDefault(code, "aclshmem error");
    }
}
