package dev.unicomm.testsupport.threads;

import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendCommunicator;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/** One thread-PE's side of a {@link ThreadWorld}. */
final class ThreadComm implements BackendCommunicator {
    final ThreadWorld w;
    final int rank;

    ThreadComm(ThreadWorld w, int rank) {
        this.w = w;
        this.rank = rank;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return w.size;
    }

    @Override
    public SymmetricHeap heap() {
        return new SymmetricHeap() {
            @Override
            public SymmetricBuffer allocate(long bytes, long alignment) {
                long off = (w.used[rank] + alignment - 1) & -alignment;
                if (off + bytes > w.heaps[rank].byteSize()) throw new IllegalStateException("thread heap full");
                w.used[rank] = off + bytes;
                return new ThreadBuffer(w, rank, off, bytes);
            }

            @Override
            public long capacity() {
                return w.heaps[rank].byteSize();
            }

            @Override
            public long used() {
                return w.used[rank];
            }

            @Override
            public MemoryKind kind() {
                return MemoryKind.HOST;
            }
        };
    }

    @Override
    public Rma rma() {
        return new ThreadRma(w);
    }

    @Override
    public Team world() {
        return new ThreadTeam(this, IntStream.range(0, w.size).toArray());
    }

    @Override
    public void barrier() {
        try {
            w.barrier.await(w.timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new CommTimeoutException("thread barrier", w.timeout);
        }
    }

    @Override
    public boolean acceptsLocal(MemoryKind kind) {
        return kind.isHost();
    }

    @Override
    public void close() {}
}
