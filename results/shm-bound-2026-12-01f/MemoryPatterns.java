import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One core, four 53 MB /dev/shm mappings (a normal MoE rank's share of four peers' rows): how fast
 * reads and copies run in the patterns the MoE bench's bounds and the portable MoE use.
 * Run: java --add-modules jdk.incubator.vector MemoryPatterns.java
 */
public class MemoryPatterns {
    static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    static final long ROW = 14336, ROWS = 3700, N = ROW * ROWS;

    /** One stream, two vector folds. */
    static long readOne(MemorySegment seg) {
        LongVector a = LongVector.zero(S), b = a;
        long step = S.vectorByteSize();
        for (long i = 0; i + 2 * step <= N; i += 2 * step) {
            a = a.lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, seg, i, LE));
            b = b.lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, seg, i + step, LE));
        }
        return a.lanewise(VectorOperators.XOR, b).reduceLanes(VectorOperators.XOR);
    }

    /** All streams at once, a few vectors of one, then of the next. */
    static long readAll(MemorySegment[] segs) {
        LongVector a = LongVector.zero(S);
        long step = S.vectorByteSize();
        for (long i = 0; i + 4 * step <= N; i += 4 * step)
            for (MemorySegment s : segs)
                a = a.lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, s, i, LE)
                        .lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, s, i + step, LE))
                        .lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, s, i + 2 * step, LE))
                        .lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, s, i + 3 * step, LE)));
        return a.reduceLanes(VectorOperators.XOR);
    }

    public static void main(String[] args) throws Exception {
        Arena arena = Arena.ofShared();
        MemorySegment[] segs = new MemorySegment[4];
        for (int k = 0; k < 4; k++) {
            Path p = Path.of("/dev/shm/memory-patterns-" + ProcessHandle.current().pid() + "-" + k);
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                segs[k] = ch.map(FileChannel.MapMode.READ_WRITE, 0, N, arena).fill((byte) (k + 1));
            }
            Files.delete(p);
        }
        MemorySegment x = arena.allocate(N, 4096).fill((byte) 7), out = arena.allocate(4 * N, 4096).fill((byte) 0);
        long fold = 0;
        double gb = 4.0 * N; // bytes per pass: four streams' worth
        System.out.println("GB/s, one core: read one stream at a time | read all four at once | copy pull (peer by peer) | copy push (a row read once, stored to four)");
        for (int round = 0; round < 12; round++) {
            long t0 = System.nanoTime();
            for (MemorySegment s : segs) fold ^= readOne(s);
            long t1 = System.nanoTime();
            fold ^= readAll(segs);
            long t2 = System.nanoTime();
            for (int k = 0; k < 4; k++) MemorySegment.copy(segs[k], 0, out, k * N, N);
            long t3 = System.nanoTime();
            for (long o = 0; o < N; o += ROW) for (int k = 0; k < 4; k++) MemorySegment.copy(x, o, out, k * N + o, ROW);
            long t4 = System.nanoTime();
            if (round >= 2) System.out.printf("%.2f | %.2f | %.2f | %.2f%n", gb / (t1 - t0), gb / (t2 - t1), gb / (t3 - t2), gb / (t4 - t3));
        }
        if (fold == 42) System.out.println();
    }
}
