package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.BackendSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Configuration of the Ascend backend. Every key is a {@code unicomm.*} setting: a system property,
 * or the environment variable of the same name in upper case with {@code _} for {@code .}
 * (e.g. {@code UNICOMM_ASCEND_TLS=false}).
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code unicomm.ascend.acl.library}</td><td>{@code libascendcl.so}</td><td>ACL runtime to dlopen (name or path)</td></tr>
 *   <tr><td>{@code unicomm.ascend.shmem.library}</td><td>{@code libshmem.so}</td><td>Ascend SHMEM library to dlopen</td></tr>
 *   <tr><td>{@code unicomm.ascend.device}</td><td>local rank mod device count</td><td>NPU this PE uses ({@code aclrtSetDevice})</td></tr>
 *   <tr><td>{@code unicomm.ascend.heap.side}</td><td>{@code device}</td><td>{@code device}: symmetric heap in NPU memory;
 *       {@code host}: in host memory ({@code aclshmemx_align(HOST_SIDE)}), load/store reachable through {@code peer()}</td></tr>
 *   <tr><td>{@code unicomm.ascend.staging.size}</td><td>{@code 4M}</td><td>device bounce buffer for host-memory RMA operands
 *       (taken from the symmetric heap, on top of {@code unicomm.heap.size})</td></tr>
 *   <tr><td>{@code unicomm.ascend.tls}</td><td>{@code true}</td><td>TLS on Ascend SHMEM's config store
 *       ({@code aclshmemx_set_conf_store_tls}); on by default, as in Ascend SHMEM</td></tr>
 *   <tr><td>{@code unicomm.ascend.tls.info}</td><td>none</td><td>the whole {@code tls_info} string, as Ascend SHMEM documents it</td></tr>
 *   <tr><td>{@code unicomm.ascend.tls.ca.path}, {@code .ca.files}, {@code .cert}, {@code .key},
 *       {@code .key.password.file}, {@code .crl.path}, {@code .crl.files}, {@code .package.path}</td><td>none</td>
 *       <td>or its fields one by one ({@code tlsCaPath}, {@code tlsCaFile}, {@code tlsCert}, {@code tlsPk}, {@code tlsPkPwd},
 *       {@code tlsCrlPath}, {@code tlsCrlFile}, {@code packagePath})</td></tr>
 *   <tr><td>{@code unicomm.ascend.tls.private.key.file}, {@code .private.key.password.file}</td><td>none</td>
 *       <td>files whose bytes go to {@code aclshmemx_set_config_store_tls_key}</td></tr>
 * </table>
 *
 * @param aclLibrary       the ACL runtime library
 * @param shmemLibrary     the Ascend SHMEM library
 * @param device           the NPU, or {@code -1} to pick local rank mod device count
 * @param hostHeap         whether the symmetric heap lives in host memory
 * @param stagingBytes     size of the device bounce buffer
 * @param tls              whether the config store runs TLS
 * @param tlsInfo          the {@code tls_info} string, or {@code null} for none
 * @param tlsKeyFile       private key file for {@code aclshmemx_set_config_store_tls_key}, or {@code null}
 * @param tlsKeyPasswordFile its password file, or {@code null}
 */
public record AscendSettings(
        String aclLibrary,
        String shmemLibrary,
        int device,
        boolean hostHeap,
        long stagingBytes,
        boolean tls,
        String tlsInfo,
        Path tlsKeyFile,
        Path tlsKeyPasswordFile) {

    public static final String ACL_LIBRARY = "unicomm.ascend.acl.library";
    public static final String SHMEM_LIBRARY = "unicomm.ascend.shmem.library";
    public static final String DEVICE = "unicomm.ascend.device";
    public static final String HEAP_SIDE = "unicomm.ascend.heap.side";
    public static final String STAGING_SIZE = "unicomm.ascend.staging.size";
    public static final String TLS = "unicomm.ascend.tls";
    public static final String TLS_INFO = "unicomm.ascend.tls.info";
    public static final String TLS_PRIVATE_KEY_FILE = "unicomm.ascend.tls.private.key.file";
    public static final String TLS_PRIVATE_KEY_PASSWORD_FILE = "unicomm.ascend.tls.private.key.password.file";

    /** The default ACL runtime soname (on LD_LIBRARY_PATH after CANN's set_env.sh). */
    public static final String DEFAULT_ACL_LIBRARY = "libascendcl.so";
    /** The default Ascend SHMEM library name. */
    public static final String DEFAULT_SHMEM_LIBRARY = "libshmem.so";
    /** Smallest staging buffer accepted. */
    public static final long MIN_STAGING = 64 << 10;

    /** {@code tls_info} fields by setting suffix (after {@code unicomm.ascend.tls.}); true = a comma list. */
    private static final Map<String, String> TLS_FIELDS = new LinkedHashMap<>();

    private static final List<String> TLS_LISTS = List.of("ca.files", "crl.files");

    static {
        TLS_FIELDS.put("ca.path", "tlsCaPath");
        TLS_FIELDS.put("cert", "tlsCert");
        TLS_FIELDS.put("key", "tlsPk");
        TLS_FIELDS.put("key.password.file", "tlsPkPwd");
        TLS_FIELDS.put("crl.path", "tlsCrlPath");
        TLS_FIELDS.put("crl.files", "tlsCrlFile");
        TLS_FIELDS.put("ca.files", "tlsCaFile");
        TLS_FIELDS.put("package.path", "packagePath");
    }

    public AscendSettings {
        if (aclLibrary == null || aclLibrary.isBlank())
            throw new IllegalArgumentException(ACL_LIBRARY + " must name a library");
        if (shmemLibrary == null || shmemLibrary.isBlank())
            throw new IllegalArgumentException(SHMEM_LIBRARY + " must name a library");
        if (device < -1) throw new IllegalArgumentException(DEVICE + " must be >= 0, got " + device);
        if (stagingBytes < MIN_STAGING || stagingBytes > (1L << 30) || stagingBytes % 4096 != 0)
            throw new IllegalArgumentException(
                    STAGING_SIZE + " must be a multiple of 4096 in [64K, 1G], got " + stagingBytes);
        if (!tls && (tlsInfo != null || tlsKeyFile != null))
            throw new IllegalArgumentException(TLS + "=false, but TLS settings (" + TLS_INFO + " / "
                    + TLS_PRIVATE_KEY_FILE + ") are given: enable TLS or drop them");
        if (tlsKeyPasswordFile != null && tlsKeyFile == null)
            throw new IllegalArgumentException(
                    TLS_PRIVATE_KEY_PASSWORD_FILE + " is set without " + TLS_PRIVATE_KEY_FILE);
    }

    /** Settings from this process's system properties and environment (what {@code availability()} uses). */
    public static AscendSettings fromSystem() {
        return from(AscendSettings::systemSetting);
    }

    /** Settings from a communicator configuration's {@code unicomm.*} properties. */
    public static AscendSettings from(CommConfig config) {
        return from(k -> config.property(k, null));
    }

    /** Settings from any lookup of {@code unicomm.*} keys (returns {@code null} for unset keys). */
    public static AscendSettings from(Function<String, String> lookup) {
        String acl = or(lookup.apply(ACL_LIBRARY), DEFAULT_ACL_LIBRARY);
        String shmem = or(lookup.apply(SHMEM_LIBRARY), DEFAULT_SHMEM_LIBRARY);
        int device = lookup.apply(DEVICE) == null ? -1 : integer(DEVICE, lookup.apply(DEVICE));
        String side = or(lookup.apply(HEAP_SIDE), "device").trim().toLowerCase();
        if (!side.equals("device") && !side.equals("host"))
            throw new IllegalArgumentException(HEAP_SIDE + " must be 'device' or 'host', got '" + side + "'");
        long staging = lookup.apply(STAGING_SIZE) == null ? 4L << 20 : size(STAGING_SIZE, lookup.apply(STAGING_SIZE));
        boolean tls = bool(TLS, or(lookup.apply(TLS), "true"));
        String info = tlsInfo(lookup);
        Path key = path(lookup.apply(TLS_PRIVATE_KEY_FILE));
        Path pw = path(lookup.apply(TLS_PRIVATE_KEY_PASSWORD_FILE));
        return new AscendSettings(acl, shmem, device, side.equals("host"), staging, tls, info, key, pw);
    }

    /** The private key bytes, or an empty array. */
    byte[] tlsKey() {
        return read(tlsKeyFile, TLS_PRIVATE_KEY_FILE);
    }

    /** The private key password bytes, or an empty array. */
    byte[] tlsKeyPassword() {
        return read(tlsKeyPasswordFile, TLS_PRIVATE_KEY_PASSWORD_FILE);
    }

    private static byte[] read(Path p, String key) {
        if (p == null) return new byte[0];
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new IllegalArgumentException(key + "=" + p + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** Builds {@code tls_info} ("name: value;" pairs) from the raw string or the separate fields, never both. */
    private static String tlsInfo(Function<String, String> lookup) {
        String raw = lookup.apply(TLS_INFO);
        List<String> parts = new ArrayList<>();
        for (var f : TLS_FIELDS.entrySet()) {
            String key = "unicomm.ascend.tls." + f.getKey();
            String v = lookup.apply(key);
            if (v == null) continue;
            v = v.trim();
            boolean list = TLS_LISTS.contains(f.getKey());
            // Ascend SHMEM splits tls_info on ';' and ':' (and file lists on ','): such characters would be misread.
            String forbidden = list ? ";:" : ";:,";
            for (char c : forbidden.toCharArray()) {
                if (v.indexOf(c) >= 0)
                    throw new IllegalArgumentException(
                            key + " must not contain '" + c + "' (Ascend SHMEM's tls_info syntax), got '" + v + "'");
            }
            if (v.isEmpty() || v.indexOf('\n') >= 0)
                throw new IllegalArgumentException(key + " must be a non-empty single-line value");
            parts.add(f.getValue() + ": " + v);
        }
        if (raw != null && !parts.isEmpty())
            throw new IllegalArgumentException(
                    TLS_INFO + " and individual unicomm.ascend.tls.* fields are both set: use one or the other");
        if (raw != null) return raw.isBlank() ? null : raw.trim();
        return parts.isEmpty() ? null : String.join("; ", parts);
    }

    /** System property, else the matching {@code UNICOMM_*} environment variable: the settings lookup, for a full key. */
    public static String systemSetting(String key) {
        return BackendSettings.fromEnvironment().get(key.substring("unicomm.".length()));
    }

    private static String or(String v, String def) {
        return v == null || v.isBlank() ? def : v;
    }

    private static Path path(String v) {
        return v == null || v.isBlank() ? null : Path.of(v.trim());
    }

    private static int integer(String key, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'");
        }
    }

    private static boolean bool(String key, String v) {
        String s = v.trim().toLowerCase();
        if (s.equals("true") || s.equals("on") || s.equals("1")) return true;
        if (s.equals("false") || s.equals("off") || s.equals("0")) return false;
        throw new IllegalArgumentException(key + " must be true or false, got '" + v + "'");
    }

    private static long size(String key, String v) {
        return dev.unicomm.api.ByteSize.parse(key, v);
    }
}
