package dev.unicomm.backend.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shim is built against our own declarations of the verbs ABI (ucv_verbs_abi.h) so that it
 * builds without rdma-core's headers. Wherever those headers are installed (CI installs them), this
 * compiles src/test/native/verbs_abi_check.cpp, whose static_asserts compare every offset, size and
 * constant the shim uses with the real verbs.h.
 */
class VerbsAbiCheckTest {

    @Test
    void ourVerbsDeclarationsMatchRdmaCoreHeaders() throws Exception {
        Path header = Path.of("/usr/include/infiniband/verbs.h");
        assumeTrue(
                Files.isRegularFile(header),
                "rdma-core's verbs.h is not installed (apt-get install libibverbs-dev); the ABI check needs it");
        assumeTrue(onPath("g++"), "g++ is not on PATH; the ABI check compiles with it");
        Process p = new ProcessBuilder(
                        "g++",
                        "-std=c++17",
                        "-fsyntax-only",
                        "-I",
                        "src/main/native",
                        "src/test/native/verbs_abi_check.cpp")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "g++ did not finish");
        assertEquals(0, p.exitValue(), "ucv_verbs_abi.h disagrees with " + header + ":\n" + out);
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
