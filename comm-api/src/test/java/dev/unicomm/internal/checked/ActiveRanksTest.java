package dev.unicomm.internal.checked;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.UnsupportedCapabilityException;
import org.junit.jupiter.api.Test;

/** MoeBuffer.activeRanks/setActiveRanks through the validating layer: checks in Java, drops passed on. */
class ActiveRanksTest extends CheckedMoeTest {

    /** An implementation with a settable active set, which reports drops of its own. */
    final class Masking extends Recording {
        ExpertMask mask = ExpertMask.all(RANKS);
        final int[] drops = {1, 0, 2, 0};

        Masking(MoeConfig config) {
            super(config);
        }

        @Override
        public ExpertMask activeRanks() {
            return mask;
        }

        @Override
        public void setActiveRanks(ExpertMask m) {
            mask = m;
        }

        @Override
        public Dispatched dispatch(Tensor x, Tensor s, Tensor i, Tensor w, MoeLayout l, int a) {
            Dispatched d = super.dispatch(x, s, i, w, l, a);
            return new Dispatched(
                    d.recvX(),
                    d.recvScales(),
                    d.recvTopkIdx(),
                    d.recvTopkWeights(),
                    d.numRecvTokensPerExpert(),
                    d.handle(),
                    drops);
        }
    }

    MoeConfig normalConfig() {
        return new MoeConfig(MoeConfig.Mode.NORMAL, EXPERTS, HIDDEN, TOKENS, TOPK, true);
    }

    @Test
    void theDefaultsSayTheCapabilityIsMissing() {
        CheckedMoe moe = new CheckedMoe(new Recording(normalConfig()), RANKS);
        UnsupportedCapabilityException e = assertThrows(UnsupportedCapabilityException.class, moe::activeRanks);
        assertEquals(Capability.MOE_ACTIVE_MASK, e.capability());
        e = assertThrows(UnsupportedCapabilityException.class, () -> moe.setActiveRanks(ExpertMask.all(RANKS)));
        assertTrue(e.getMessage().contains("setActiveRanks"), e.getMessage());
    }

    @Test
    void aMaskOfAnotherJobSizeOrNoneIsRefusedBeforeTheImplementation() {
        Masking impl = new Masking(normalConfig());
        CheckedMoe moe = new CheckedMoe(impl, RANKS);
        expect(
                "jobSize must equal the buffer's ranks",
                IllegalArgumentException.class,
                () -> moe.setActiveRanks(ExpertMask.all(RANKS + 1)));
        expect("mask", IllegalArgumentException.class, () -> moe.setActiveRanks(null));
        assertEquals(ExpertMask.all(RANKS), impl.mask);
    }

    @Test
    void aMaskThatReactivatesARankIsRefusedBeforeTheImplementation() {
        Masking impl = new Masking(normalConfig());
        CheckedMoe moe = new CheckedMoe(impl, RANKS);
        ExpertMask one = new ExpertMask(RANKS, new int[] {0});
        moe.setActiveRanks(one);
        expect(
                "re-activates rank 1, which is inactive on this buffer",
                IllegalArgumentException.class,
                () -> moe.setActiveRanks(ExpertMask.all(RANKS)));
        assertSame(one, impl.mask);
        moe.setActiveRanks(one); // the same set again is no change
        assertSame(one, impl.mask);
    }

    @Test
    void aValidMaskReachesTheImplementationAndIsReadBack() {
        Masking impl = new Masking(normalConfig());
        CheckedMoe moe = new CheckedMoe(impl, RANKS);
        ExpertMask one = new ExpertMask(RANKS, new int[] {0});
        moe.setActiveRanks(one);
        assertSame(one, impl.mask);
        assertEquals(one, moe.activeRanks());
    }

    @Test
    void theImplementationsDropsArePassedOn() {
        Masking impl = new Masking(normalConfig());
        CheckedMoe moe = new CheckedMoe(impl, RANKS);
        Tensor idx = topk(-1, -1, -1, -1, -1, -1, -1, -1); // the implementation's drops are passed on whatever they are
        MoeLayout layout = moe.layout(idx);
        Dispatched d = moe.dispatch(bf16(TOKENS, HIDDEN), idx, null, layout);
        assertArrayEquals(impl.drops, d.droppedPerToken());
    }

    @Test
    void aHostPathMaskedBufferReportsItsFixedMaskAndRefusesChanges() {
        ExpertMask mask = new ExpertMask(4, new int[] {0, 3});
        CheckedMoe moe = CheckedMoe.masked(
                new Masking(new MoeConfig(MoeConfig.Mode.NORMAL, EXPERTS / 2, HIDDEN, TOKENS, TOPK, true)),
                RANKS,
                new MoeConfig(MoeConfig.Mode.NORMAL, 16, HIDDEN, TOKENS, TOPK, true),
                mask);
        assertEquals(mask, moe.activeRanks());
        expect("fixed", IllegalStateException.class, () -> moe.setActiveRanks(ExpertMask.all(RANKS)));
    }

    @Test
    void aClosedBufferSaysSo() {
        CheckedMoe moe = new CheckedMoe(new Masking(normalConfig()), RANKS);
        moe.close();
        expect("closed", IllegalStateException.class, moe::activeRanks);
        expect("closed", IllegalStateException.class, () -> moe.setActiveRanks(ExpertMask.all(RANKS)));
    }
}
