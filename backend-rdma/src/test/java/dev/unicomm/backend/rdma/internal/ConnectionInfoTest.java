package dev.unicomm.backend.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectionInfoTest {
    private final ConnectionInfo info = new ConnectionInfo(
            "rxe0",
            true,
            0,
            new Gid(0, 0xffff0a4d0001L),
            3,
            List.of(new ConnectionInfo.Qp(17, 12345), new ConnectionInfo.Qp(18, 999)),
            Map.of("buffer", new ConnectionInfo.Region(0x7f0000001000L, 1 << 20, 0x1234)));

    @Test
    void roundTrips() {
        assertEquals(info, ConnectionInfo.decode(info.encode()));
        assertEquals("::ffff:10.77.0.1", info.gid().display());
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:0001", info.gid().toString());
    }

    @Test
    void rejectsForeignTruncatedAndTrailingBytes() {
        byte[] ok = info.encode();
        var foreign = assertThrows(
                IllegalArgumentException.class, () -> ConnectionInfo.decode(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        assertTrue(foreign.getMessage().contains("bad magic"), foreign.getMessage());
        var cut = assertThrows(
                IllegalArgumentException.class, () -> ConnectionInfo.decode(Arrays.copyOf(ok, ok.length - 3)));
        assertTrue(cut.getMessage().contains("truncated"), cut.getMessage());
        var longer = assertThrows(
                IllegalArgumentException.class, () -> ConnectionInfo.decode(Arrays.copyOf(ok, ok.length + 2)));
        assertTrue(longer.getMessage().contains("trailing"), longer.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConnectionInfo.decode(null));
    }
}
