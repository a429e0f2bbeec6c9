package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code unicomm run --tls} end to end on backend-shm: the ranks' store runs over TLS with the job's
 * token and a per-job key pair, neither the token nor the key password shows up in anything the
 * command prints, the key pair is deleted when the job ends, and a wrong or missing token is
 * rejected and logged without any secret.
 */
@Timeout(600)
class RunSecurityTest {
    @TempDir
    Path dir;

    private List<String> job(String name) throws IOException {
        Path d = Files.createDirectories(dir.resolve(name));
        Captured r = CliRunner.line(
                "run -n 2 --tls --backend shm --timeout 60s -- " + SecretProbe.class.getName() + " " + d);
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(
                r.out().contains("[0] probe rank 0 store TcpStore[rank=0/2")
                        && r.out().contains(", tls]"),
                r.out());
        assertTrue(r.out().contains("[1] probe rank 1 store TcpStore[rank=1/2"), r.out());
        List<String> a = Files.readAllLines(d.resolve("rank-0")), b = Files.readAllLines(d.resolve("rank-1"));
        assertEquals(a, b, "both ranks of a job share its token, key password and keystore");
        String token = a.get(0), password = a.get(1), keystore = a.get(2);
        assertTrue(token.length() >= 40, "a 256-bit token, got " + token.length() + " characters");
        assertFalse(password.isEmpty() || keystore.isEmpty(), "TLS was on: " + a);
        String printed = r.out() + r.err();
        assertFalse(printed.contains(token), "the token was printed");
        assertFalse(printed.contains(password), "the TLS key password was printed");
        assertFalse(Files.exists(Path.of(keystore)), "the per-job key pair " + keystore + " outlived the job");
        return a;
    }

    /** A rank with a near-miss of the token, then none, is rejected; the host logs it without any secret. */
    @Test
    void wrongAndMissingTokensAreRejectedAndLoggedWithoutTheSecret() throws IOException {
        Captured r =
                CliRunner.line("run -n 2 --timeout 30s -- " + SecretProbe.class.getName() + " " + dir + " wrong-token");
        String all = r.out() + r.err();
        assertEquals(0, r.code(), all);
        assertTrue(
                r.out().contains("[1] rejected: the rendezvous store at")
                        && r.out().contains("presented a wrong token"),
                all);
        assertTrue(r.out().contains("presented no token"), all);
        assertFalse(all.contains("ADMITTED"), all);
        // Issue 45: a turned-away connection may be a stranger (another job on the port): the host goes on, unharmed.
        assertTrue(r.out().contains("[0] host done"), all);
        assertFalse(r.out().contains("host saw the rejection"), all);
        // The host's own log (rank 0's standard error) names the rejection...
        assertTrue(
                r.err().contains("[0] ")
                        && r.err().contains("rejected a connection")
                        && r.err().contains("a wrong token"),
                r.err());
        // ...and no 40+ character run of token alphabet (the token or the near-miss) appears anywhere.
        assertFalse(
                java.util.regex.Pattern.compile("[A-Za-z0-9_-]{40,}")
                        .matcher(all)
                        .find(),
                "a secret-like string was printed:\n" + all);
    }

    /** (That every job gets a fresh token is JobLauncherTest.eachJobGetsItsOwnTokenSharedByItsRanks.) */
    @Test
    void aTlsJobRunsEndToEndAndItsSecretsAreNeverPrinted() throws IOException {
        job("one");
    }
}
