package dev.unicomm.testsupport;

import java.util.Arrays;
import java.util.List;

/** Lists written in prose ("A, B and C"), as docs and help texts name things that tests compare with the code. */
public final class ProseList {
    private ProseList() {}

    /** The items of {@code prose} ("A", "A and B", "A, B and C", "A, B, and C"), trimmed and sorted. */
    public static List<String> sortedItems(String prose) {
        return Arrays.stream(prose.split(",? and |, "))
                .map(String::trim)
                .sorted()
                .toList();
    }
}
