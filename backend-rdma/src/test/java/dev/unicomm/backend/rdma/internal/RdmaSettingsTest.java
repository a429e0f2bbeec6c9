package dev.unicomm.backend.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.BackendContext;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad rdma settings are named at open before anything native happens (runs anywhere: no verbs library needed). */
class RdmaSettingsTest {
    private static String refused(Map<String, String> settings, int localRank) {
        var config = new CommConfig(
                "rdma", localRank, 4, localRank, "127.0.0.1", 1, null, false, Duration.ofSeconds(5), 1 << 16, settings);
        return assertThrows(
                        IllegalArgumentException.class,
                        () -> RdmaCommunicator.open(new BackendContext(config, null), null))
                .getMessage();
    }

    @Test
    void eachBadSettingIsOneLineNamingIt() {
        String ack = refused(Map.of("unicomm.rdma.ack_timeout", "40"), 0);
        assertTrue(ack.startsWith("unicomm.rdma.ack_timeout is an exponent 1..31"), ack);
        String gid = refused(Map.of("unicomm.rdma.gid_index", "1,-3"), 1);
        assertTrue(gid.startsWith("unicomm.rdma.gid_index must be >= 0, or -1"), gid);
        String list = refused(Map.of("unicomm.rdma.device", "rxe0,,rxe1"), 2);
        assertTrue(list.startsWith("unicomm.rdma.device has an empty entry"), list);
        String port = refused(Map.of("unicomm.rdma.port", "one"), 3);
        assertTrue(port.startsWith("unicomm.rdma.port must be an integer"), port);
    }
}
