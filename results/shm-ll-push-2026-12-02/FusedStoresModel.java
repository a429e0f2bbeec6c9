import dev.unicomm.collectives.fp8.Fp8Quantiser;
import java.lang.foreign.*;
import java.util.*;

public class Fused {
    public static void main(String[] a) {
        int T = 128, H = 7168, K = 8, E = 256, slots = 256;
        boolean rotate = a.length > 0 && a[0].equals("rotate"), split = a.length > 1;
        Arena arena = Arena.ofShared();
        MemorySegment src = arena.allocate(2L * T * H, 64), stage = arena.allocate((long) T * H + 4L * T * H / 128, 64);
        long codesBytes = (long) E * slots * H;
        MemorySegment dst = arena.allocate(codesBytes + codesBytes / 32, 64);
        SplittableRandom rnd = new SplittableRandom(1);
        for (long i = 0; i < (long) T * H; i++) src.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (Float.floatToRawIntBits((float) rnd.nextGaussian()) >>> 16));
        int[][] ex = new int[T][K];
        for (int t = 0; t < T; t++) { int[] p = rnd.ints(0, E).distinct().limit(K).toArray(); ex[t] = p; }
        long[][] codeAt = new long[T][K], scaleAt = new long[T][K];
        long hc = codesBytes / 2; MemorySegment half = arena.allocate(hc + hc / 32, 64), half2 = split ? arena.allocate(hc + hc / 32, 64) : half; MemorySegment[][] tgs = new MemorySegment[T][K];
        int iters = 200;
        long[] ta = new long[iters], tb = new long[iters], tc = new long[iters];
        for (int it = 0; it < iters; it++) {
            int[] cnt = new int[E];
            int base = rotate ? (it % 64) * 2 : 0;
            for (int t = 0; t < T; t++) for (int k = 0; k < K; k++) { int e = ex[t][k]; long s = (long) e * slots + base + cnt[e]++; codeAt[t][k] = s * H; scaleAt[t][k] = codesBytes + s * (H / 32); if (split) { int le = e % (E/2); long s2 = (long) le * slots + base + cnt[e] - 1; codeAt[t][k] = s2 * H; scaleAt[t][k] = hc + s2 * (H / 32); tgs[t][k] = e >= E/2 ? half2 : half; } else tgs[t][k] = dst; }
            long t0 = System.nanoTime();
            Fp8Quantiser.quantise(src, 0, T, H, stage, 0, stage, (long) T * H);
            for (int t = 0; t < T; t++) for (int k = 0; k < K; k++) {
                MemorySegment.copy(stage, (long) t * H, tgs[t][k], codeAt[t][k], H);
                MemorySegment.copy(stage, (long) T * H + t * (H / 32), tgs[t][k], scaleAt[t][k], H / 32);
            }
            long t1 = System.nanoTime();
            for (int t = 0; t < T; t++) Fp8Quantiser.quantiseRow(src, 2L * t * H, H, tgs[t], codeAt[t], scaleAt[t], K);
            long t2 = System.nanoTime();
            for (int t = 0; t < T; t++) for (int k = 0; k < K; k++) {
                MemorySegment.copy(stage, (long) t * H, tgs[t][k], codeAt[t][k], H);
                MemorySegment.copy(stage, (long) T * H + t * (H / 32), tgs[t][k], scaleAt[t][k], H / 32);
            }
            long t3 = System.nanoTime();
            ta[it] = t1 - t0; tb[it] = t2 - t1; tc[it] = t3 - t2;
        }
        Arrays.sort(ta); Arrays.sort(tb); Arrays.sort(tc);
        int m = iters / 2;
        System.out.printf("%s: quantise+copy %.0f us, fused %.0f us, copy only %.0f us; copy/fused %.2f copy/(q+c) %.2f%n", rotate ? "rotate" : "fixed",
                ta[m] / 1e3, tb[m] / 1e3, tc[m] / 1e3, (double) tc[m] / tb[m], (double) tc[m] / ta[m]);
    }
}
