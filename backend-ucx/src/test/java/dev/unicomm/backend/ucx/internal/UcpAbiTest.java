package dev.unicomm.backend.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link UcpAbi} against the installed headers: compiles a probe that prints every size, offset and
 * enum value the bindings use, and compares. Skips where gcc or the UCX headers (libucx-dev) are missing.
 */
class UcpAbiTest {
    private static final Path HEADER = Path.of("/usr/include/ucp/api/ucp.h");

    /** C expression -> the value UcpAbi uses. */
    private static Map<String, Long> expected() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("UCP_API_MAJOR", (long) UcpAbi.API_MAJOR);
        m.put("UCP_API_MINOR", (long) UcpAbi.API_MINOR);
        m.put("sizeof(ucp_params_t)", UcpAbi.PARAMS_SIZE);
        m.put("offsetof(ucp_params_t, field_mask)", UcpAbi.PARAMS_FIELD_MASK);
        m.put("offsetof(ucp_params_t, features)", UcpAbi.PARAMS_FEATURES);
        m.put("offsetof(ucp_params_t, name)", UcpAbi.PARAMS_NAME);
        m.put("UCP_PARAM_FIELD_FEATURES", UcpAbi.PARAM_FIELD_FEATURES);
        m.put("UCP_PARAM_FIELD_NAME", UcpAbi.PARAM_FIELD_NAME);
        m.put("UCP_FEATURE_TAG", UcpAbi.FEATURE_TAG);
        m.put("UCP_FEATURE_RMA", UcpAbi.FEATURE_RMA);
        m.put("UCP_FEATURE_AMO64", UcpAbi.FEATURE_AMO64);
        m.put("UCP_FEATURE_WAKEUP", UcpAbi.FEATURE_WAKEUP);
        m.put("sizeof(ucp_worker_params_t)", UcpAbi.WORKER_PARAMS_SIZE);
        m.put("offsetof(ucp_worker_params_t, field_mask)", UcpAbi.WORKER_PARAMS_FIELD_MASK);
        m.put("offsetof(ucp_worker_params_t, thread_mode)", UcpAbi.WORKER_PARAMS_THREAD_MODE);
        m.put("UCP_WORKER_PARAM_FIELD_THREAD_MODE", UcpAbi.WORKER_PARAM_FIELD_THREAD_MODE);
        m.put("UCS_THREAD_MODE_MULTI", (long) UcpAbi.THREAD_MODE_MULTI);
        m.put("sizeof(ucp_ep_params_t)", UcpAbi.EP_PARAMS_SIZE);
        m.put("offsetof(ucp_ep_params_t, field_mask)", UcpAbi.EP_PARAMS_FIELD_MASK);
        m.put("offsetof(ucp_ep_params_t, address)", UcpAbi.EP_PARAMS_ADDRESS);
        m.put("offsetof(ucp_ep_params_t, err_mode)", UcpAbi.EP_PARAMS_ERR_MODE);
        m.put("offsetof(ucp_ep_params_t, err_handler.cb)", UcpAbi.EP_PARAMS_ERR_HANDLER_CB);
        m.put("offsetof(ucp_ep_params_t, err_handler.arg)", UcpAbi.EP_PARAMS_ERR_HANDLER_ARG);
        m.put("UCP_EP_PARAM_FIELD_ERR_HANDLER", UcpAbi.EP_PARAM_FIELD_ERR_HANDLER);
        m.put("UCP_EP_PARAM_FIELD_REMOTE_ADDRESS", UcpAbi.EP_PARAM_FIELD_REMOTE_ADDRESS);
        m.put("UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE", UcpAbi.EP_PARAM_FIELD_ERR_HANDLING_MODE);
        m.put("UCP_ERR_HANDLING_MODE_PEER", (long) UcpAbi.ERR_HANDLING_MODE_PEER);
        m.put("sizeof(ucp_mem_map_params_t)", UcpAbi.MEM_MAP_PARAMS_SIZE);
        m.put("offsetof(ucp_mem_map_params_t, field_mask)", UcpAbi.MEM_MAP_FIELD_MASK);
        m.put("offsetof(ucp_mem_map_params_t, address)", UcpAbi.MEM_MAP_ADDRESS);
        m.put("offsetof(ucp_mem_map_params_t, length)", UcpAbi.MEM_MAP_LENGTH);
        m.put("UCP_MEM_MAP_PARAM_FIELD_ADDRESS", UcpAbi.MEM_MAP_PARAM_FIELD_ADDRESS);
        m.put("UCP_MEM_MAP_PARAM_FIELD_LENGTH", UcpAbi.MEM_MAP_PARAM_FIELD_LENGTH);
        m.put("sizeof(ucp_request_param_t)", UcpAbi.REQUEST_PARAM_SIZE);
        m.put("offsetof(ucp_request_param_t, op_attr_mask)", UcpAbi.REQ_OP_ATTR_MASK);
        m.put("offsetof(ucp_request_param_t, flags)", UcpAbi.REQ_FLAGS);
        m.put("offsetof(ucp_request_param_t, datatype)", UcpAbi.REQ_DATATYPE);
        m.put("offsetof(ucp_request_param_t, reply_buffer)", UcpAbi.REQ_REPLY_BUFFER);
        m.put("offsetof(ucp_request_param_t, cb)", UcpAbi.REQ_CB);
        m.put("offsetof(ucp_request_param_t, user_data)", UcpAbi.REQ_USER_DATA);
        m.put("offsetof(ucp_request_param_t, recv_info)", UcpAbi.REQ_RECV_INFO);
        m.put("UCP_OP_ATTR_FIELD_CALLBACK", (long) UcpAbi.OP_ATTR_FIELD_CALLBACK);
        m.put("UCP_OP_ATTR_FIELD_USER_DATA", (long) UcpAbi.OP_ATTR_FIELD_USER_DATA);
        m.put("UCP_OP_ATTR_FIELD_RECV_INFO", (long) UcpAbi.OP_ATTR_FIELD_RECV_INFO);
        m.put("sizeof(ucp_tag_recv_info_t)", UcpAbi.TAG_RECV_INFO_SIZE);
        m.put("offsetof(ucp_tag_recv_info_t, sender_tag)", UcpAbi.TAG_RECV_INFO_TAG);
        m.put("offsetof(ucp_tag_recv_info_t, length)", UcpAbi.TAG_RECV_INFO_LENGTH);
        m.put("UCP_OP_ATTR_FIELD_DATATYPE", (long) UcpAbi.OP_ATTR_FIELD_DATATYPE);
        m.put("UCP_OP_ATTR_FIELD_FLAGS", (long) UcpAbi.OP_ATTR_FIELD_FLAGS);
        m.put("UCP_OP_ATTR_FIELD_REPLY_BUFFER", (long) UcpAbi.OP_ATTR_FIELD_REPLY_BUFFER);
        m.put("UCP_EP_CLOSE_FLAG_FORCE", (long) UcpAbi.EP_CLOSE_FLAG_FORCE);
        m.put("ucp_dt_make_contig(8)", UcpAbi.DATATYPE_CONTIG_8);
        m.put("UCP_ATOMIC_OP_ADD", (long) UcpAbi.ATOMIC_OP_ADD);
        m.put("UCP_ATOMIC_OP_SWAP", (long) UcpAbi.ATOMIC_OP_SWAP);
        m.put("UCP_ATOMIC_OP_CSWAP", (long) UcpAbi.ATOMIC_OP_CSWAP);
        m.put("sizeof(ucp_atomic_op_t)", 4L); // passed as JAVA_INT
        m.put("sizeof(ucs_status_t)", 1L); // returned as JAVA_BYTE
        m.put("UCS_OK", (long) UcpAbi.OK);
        m.put("UCS_INPROGRESS", (long) UcpAbi.INPROGRESS);
        m.put("UCS_ERR_BUSY", (long) UcpAbi.ERR_BUSY);
        m.put("UCS_ERR_LAST", UcpAbi.ERR_LAST);
        m.put("UCS_ERR_UNREACHABLE", -6L);
        m.put("UCS_ERR_CONNECTION_RESET", -25L);
        m.put("UCS_ERR_ENDPOINT_TIMEOUT", -80L);
        m.put("UCS_ERR_CANCELED", -16L);
        return m;
    }

    @Test
    void layoutsAndConstantsMatchTheInstalledHeaders(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(HEADER), "no UCX headers (" + HEADER + "): apt-get install libucx-dev");
        assumeTrue(onPath("gcc"), "no gcc to compile the ABI probe");
        StringBuilder c = new StringBuilder(
                "#include <stddef.h>\n#include <stdio.h>\n#include <ucp/api/ucp.h>\nint main(void) {\n");
        for (String expr : expected().keySet())
            c.append("  printf(\"%s=%lld\\n\", \"")
                    .append(expr)
                    .append("\", (long long) (")
                    .append(expr)
                    .append("));\n");
        c.append("  return 0;\n}\n");
        Path src = dir.resolve("probe.c"), exe = dir.resolve("probe");
        Files.writeString(src, c);
        assertEquals(0, run(dir, "gcc", src.toString(), "-o", exe.toString()), "the probe did not compile");
        Path out = dir.resolve("out.txt");
        assertEquals(
                0,
                new ProcessBuilder(exe.toString())
                        .redirectOutput(out.toFile())
                        .start()
                        .waitFor());
        Map<String, Long> actual = new TreeMap<>();
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            int eq = line.lastIndexOf('=');
            actual.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        Map<String, Long> want = new TreeMap<>(expected());
        assertEquals(want, actual, "UcpAbi differs from the installed UCX headers");
    }

    @Test
    void statusPointersDecodeAsUcsPtrMacros() {
        assertTrue(UcpAbi.isError(-6L), "UCS_PTR_IS_ERR of an error status");
        assertTrue(UcpAbi.isError(-100L));
        assertTrue(
                !UcpAbi.isError(0L) && !UcpAbi.isError(0x7f0000001000L), "NULL and a request pointer are not errors");
        assertEquals((byte) -25, UcpAbi.status(-25L));
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":"))
            if (Files.isExecutable(Path.of(d, tool))) return true;
        return false;
    }

    private static int run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("gcc.log").toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
