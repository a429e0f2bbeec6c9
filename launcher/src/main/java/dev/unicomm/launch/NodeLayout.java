package dev.unicomm.launch;

/**
 * Where one launcher's ranks sit in a job of several hosts, with torchrun's names: {@code nnodes}
 * launchers, one per host, each starting the same number of ranks; ranks are numbered node-major (node
 * {@code nodeRank}'s local rank {@code l} is rank {@code nodeRank * perNode + l}); node 0's first rank serves
 * the rendezvous store on {@code masterAddr:masterPort}, an address of node 0 the other hosts reach.
 *
 * @param nnodes     number of hosts (launchers), 1..{@value #MAX_NODES}
 * @param nodeRank   this host's index, 0..nnodes-1
 * @param masterAddr node 0's address or name
 * @param masterPort the store's port there
 */
public record NodeLayout(int nnodes, int nodeRank, String masterAddr, int masterPort) {
    /** Most hosts of one job. */
    public static final int MAX_NODES = 4096;
    /** torchrun's default port. */
    public static final int DEFAULT_PORT = 29500;

    public NodeLayout {
        if (nnodes < 1 || nnodes > MAX_NODES)
            throw new IllegalArgumentException("--nnodes must be in [1, " + MAX_NODES + "], got " + nnodes);
        if (nodeRank < 0 || nodeRank >= nnodes)
            throw new IllegalArgumentException(
                    "--node-rank must be in [0, " + nnodes + ") for --nnodes " + nnodes + ", got " + nodeRank);
        if (masterAddr == null || masterAddr.isBlank())
            throw new IllegalArgumentException(
                    "a job of " + nnodes + " nodes needs --master-addr: an address of node 0 that every host reaches");
        if (masterPort < 1 || masterPort > 65535)
            throw new IllegalArgumentException("--master-port must be in [1, 65535], got " + masterPort);
    }

    /** The job rank of local rank {@code local} on this node. */
    int rankOf(int local, int perNode) {
        return nodeRank * perNode + local;
    }
}
