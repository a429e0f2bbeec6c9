package dev.unicomm.benchmarks;

import dev.unicomm.collectives.fp8.Fp8Quantiser;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The portable path's FP8 quantiser ({@code quantise*}: BF16 tokens to e4m3 codes plus one fp32
 * scale per 128 channels) against a plain {@code MemorySegment} copy of the same input bytes
 * ({@code copy*}), in GB/s of BF16 input (one JMH "op" is one input byte, so ops/ns = GB/s).
 * {@code quantise / copy} is how close the quantiser runs to memory speed. Two shapes: DeepEP's
 * low-latency batch (128 tokens of 7168 channels, 1.8 MB, cache-resident) and a normal-mode batch
 * (2048 tokens, 29 MB, beyond the caches). Forks run with {@code --add-modules jdk.incubator.vector},
 * as {@code unicomm bench moe} does; without it the quantiser falls back to plain loops.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector"})
public class Fp8QuantiserBenchmark {
    static final int HIDDEN = 7168;
    static final int SMALL_TOKENS = 128, LARGE_TOKENS = 2048;
    static final int SMALL_BYTES = SMALL_TOKENS * HIDDEN * 2, LARGE_BYTES = LARGE_TOKENS * HIDDEN * 2;

    /** Random BF16 tokens and room for their codes, scales and a plain copy. */
    public abstract static class Tokens {
        Arena arena;
        MemorySegment src, codes, scales, copy;

        abstract int tokens();

        @Setup(Level.Trial)
        public void create() {
            if (!Fp8Quantiser.vectorised())
                throw new IllegalStateException("the fork lacks --add-modules jdk.incubator.vector");
            arena = Arena.ofShared();
            long values = (long) tokens() * HIDDEN;
            src = arena.allocate(2 * values, 64);
            codes = arena.allocate(values, 64);
            scales = arena.allocate(4 * values / Fp8Quantiser.BLOCK, 64);
            copy = arena.allocate(2 * values, 64);
            SplittableRandom rnd = new SplittableRandom(1);
            for (long i = 0; i < values; i++) // normal-ish activations: |x| mostly below 8
            src.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short)
                    (Float.floatToRawIntBits((float) rnd.nextGaussian()) >>> 16));
        }

        @TearDown(Level.Trial)
        public void close() {
            arena.close();
        }
    }

    @State(Scope.Thread)
    public static class Small extends Tokens {
        @Override
        int tokens() {
            return SMALL_TOKENS;
        }
    }

    @State(Scope.Thread)
    public static class Large extends Tokens {
        @Override
        int tokens() {
            return LARGE_TOKENS;
        }
    }

    @Benchmark
    @OperationsPerInvocation(SMALL_BYTES)
    public MemorySegment quantiseSmall(Small s) {
        Fp8Quantiser.quantise(s.src, 0, SMALL_TOKENS, HIDDEN, s.codes, 0, s.scales, 0);
        return s.codes;
    }

    @Benchmark
    @OperationsPerInvocation(SMALL_BYTES)
    public MemorySegment copySmall(Small s) {
        MemorySegment.copy(s.src, 0, s.copy, 0, SMALL_BYTES);
        return s.copy;
    }

    @Benchmark
    @OperationsPerInvocation(LARGE_BYTES)
    public MemorySegment quantiseLarge(Large s) {
        Fp8Quantiser.quantise(s.src, 0, LARGE_TOKENS, HIDDEN, s.codes, 0, s.scales, 0);
        return s.codes;
    }

    @Benchmark
    @OperationsPerInvocation(LARGE_BYTES)
    public MemorySegment copyLarge(Large s) {
        MemorySegment.copy(s.src, 0, s.copy, 0, LARGE_BYTES);
        return s.copy;
    }
}
