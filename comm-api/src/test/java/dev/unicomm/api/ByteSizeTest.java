package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ByteSizeTest {
    @Test
    void acceptsBytesAndBinarySuffixesInAnyCase() {
        assertEquals(4096, ByteSize.parse("x", "4096"));
        assertEquals(8, ByteSize.parse("x", "8B"));
        assertEquals(64L << 10, ByteSize.parse("x", "64k"));
        assertEquals(64L << 10, ByteSize.parse("x", "64KB"));
        assertEquals(64L << 10, ByteSize.parse("x", " 64 KiB "));
        assertEquals(16L << 20, ByteSize.parse("x", "16M"));
        assertEquals(1L << 30, ByteSize.parse("x", "1g"));
        assertEquals(2L << 40, ByteSize.parse("x", "2T"));
        assertEquals(0, ByteSize.parse("x", "0"));
    }

    @Test
    void rejectsOverflowNegativesGarbageAndNamesTheSetting() {
        for (String bad :
                new String[] {"", "lots", "-1", "1.5M", "8388608T", "99999999999999999999", "iB", "4iB", "M", null}) {
            var e = assertThrows(
                    IllegalArgumentException.class, () -> ByteSize.parse("UNICOMM_HEAP_SIZE", bad), "accepted " + bad);
            assertTrue(e.getMessage().startsWith("UNICOMM_HEAP_SIZE must be"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parsePositive("--min-size", "0"));
    }

    @Test
    void formatsWithTheLargestDividingUnit() {
        assertEquals("8 B", ByteSize.format(8));
        assertEquals("4 KiB", ByteSize.format(4096));
        assertEquals("3 MiB", ByteSize.format(3L << 20));
        assertEquals("1536 KiB", ByteSize.format(1536L << 10));
        assertEquals("0 B", ByteSize.format(0));
    }
}
