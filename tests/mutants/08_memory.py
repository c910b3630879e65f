"""Wrong answers that lesson 08's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # predict the bytes a graph holds
        "wrong": {
            "mse's saved difference forgotten": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + batch * nout + 1)
                return itemsize * entries
            """,
            "the biases forgotten": """
                entries = (batch * nin + nin * nhidden + 2 * batch * nhidden
                           + nhidden * nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries
            """,
            "8 bytes whatever the dtype": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return 8 * entries
            """,
            "the tanh output forgotten": """
                entries = (batch * nin + nin * nhidden + nhidden + batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries
            """,
            "the input x forgotten": """
                entries = (nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries
            """,
            "the loss forgotten": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout)
                return itemsize * entries
            """,
            "a float": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries * 1.0
            """,
        },
        "right": """
            shapes = [(batch, nin), (nin, nhidden), (nhidden,), (batch, nhidden), (batch, nhidden),
                      (nhidden, nout), (nout,), (batch, nout), (batch, nout), (batch, nout), ()]
            return sum(math.prod(shape) for shape in shapes) * itemsize
        """,
    },
    2: {  # find and fix the leak
        # Edits of the solution's loop, whose running mean is `total += loss.item()` then
        # `running.append(total / (step + 1))`.
        "wrong": {
            "the leaky loop, floats at the end": [
                ("total += loss.item()", "total = total + loss"),
                ("return running", "return [r.item() for r in running]"),
            ],
            "total still chains every loss": [
                ("total += loss.item()\n        running.append(total / (step + 1))",
                 "total = total + loss\n        running.append(total.item() / (step + 1))"),
            ],
            "every loss kept for the mean": [
                ("    running = []\n", "    running = []\n    losses = []\n"),
                ("total += loss.item()\n        running.append(total / (step + 1))",
                 "losses.append(loss)\n        running.append(sum(l.item() for l in losses) / (step + 1))"),
            ],
            "the list returned from inside the loop": [("\n    return running", "\n        return running")],
            "gradients never cleared": [("        opt.zero_grad()\n", "")],
            "each step's loss, not the mean": [
                ("running.append(total / (step + 1))", "running.append(loss.item())"),
            ],
            "every loss kept for a plot": [
                ("    running = []\n", "    running = []\n    kept = []\n"),
                ("total += loss.item()", "total += loss.item()\n        kept.append(loss)"),
            ],
        },
        "right": [
            ("total += loss.item()\n        running.append(total / (step + 1))",
             "total = total + loss.detach()\n        running.append((total / (step + 1)).item())"),
        ],
    },
    3: {  # checkpointed segments, as torch.utils.checkpoint.checkpoint_sequential cuts them
        "wrong": {
            "the segment's input detached inside it": [("run_blocks(segment, t), h)",
                                                        "run_blocks(segment, t.detach()), h)")],
            "lesson 08's segments of k, the last one checkpointed too": """
                k = len(layers) // segments
                h = x
                for start in range(0, len(layers), k):
                    segment = layers[start:start + k]
                    h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)
                return h
            """,
            "the last segment checkpointed too": [
                ("    return run_blocks(layers[size * (segments - 1):], h)",
                 "    rest = layers[size * (segments - 1):]\n"
                 "    return checkpoint(lambda t: run_blocks(rest, t), h)")],
            "segments of ceil(depth / segments) blocks": [("size = len(layers) // segments",
                                                           "size = -(-len(layers) // segments)")],
            "the sizes of np.array_split, the last one plain": """
                parts = np.array_split(np.arange(len(layers)), segments)
                h = x
                for part in parts[:-1]:
                    segment = [layers[i] for i in part]
                    h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)
                return run_blocks([layers[i] for i in parts[-1]], h)
            """,
            "the blocks left over in the first segment": """
                size = len(layers) // segments
                bounds = [0] + [len(layers) % segments + size * i for i in range(1, segments + 1)]
                h = x
                for start, end in zip(bounds[:-2], bounds[1:-1]):
                    segment = layers[start:end]
                    h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)
                return run_blocks(layers[bounds[-2]:], h)
            """,
            "segments taken as the size of a segment": [("size = len(layers) // segments", "size = segments")],
            "the lambda reads the segment late": [
                ("h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)",
                 "h = checkpoint(lambda t: run_blocks(layers[start:start + size], t), h)")],
            "the segment's result passed where its function belongs": [
                ("h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)",
                 "h = checkpoint(run_blocks(segment, h), h)")],
            "no checkpoint": """
                return run_blocks(layers, x)
            """,
            "the segment's input captured": [
                ("h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)",
                 "h = checkpoint(lambda t, segment=segment, h=h: run_blocks(segment, h), h)")],
            "every block but the last checkpointed on its own": """
                h = x
                for layer in layers[:-1]:
                    h = checkpoint(lambda t, layer=layer: layer(t).tanh(), h)
                return run_blocks(layers[-1:], h)
            """,
        },
        "right": """
            import functools

            size = len(layers) // segments
            cuts = [size * i for i in range(segments)]  # where each segment starts
            h = x
            for start, end in zip(cuts[:-1], cuts[1:]):
                h = checkpoint(functools.partial(run_blocks, layers[start:end]), h)
            return run_blocks(layers[cuts[-1]:], h)
        """,
    },
}
