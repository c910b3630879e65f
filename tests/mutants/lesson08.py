"""Plausible answers to lesson 08's exercises: each wrong one must fail its check, each right one pass.

tests/test_mutants_lesson08.py runs them against the check cells of solutions/08_memory.ipynb.
"""

PREDICT = '''
def predict_nbytes(batch, nin, nhidden, nout, itemsize):
    entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
               + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
    return itemsize * entries
'''

TRAIN = '''
def train(model, x, y, steps, lr):
    opt = SGD(model.parameters(), lr=lr)
    total = 0.0
    running = []
    for step in range(steps):
        loss = F.mse(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        running.append(total / (step + 1))
    return running
'''

SEGMENTS = '''
def checkpointed_forward(layers, x, k):
    h = x
    for start in range(0, len(layers), k):
        segment = layers[start:start + k]
        h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)
    return h
'''

MUTANTS = {
    "predict_nbytes": {
        "wrong": [
            # mse's saved difference forgotten: only the target counted
            PREDICT.replace("+ 2 * batch * nout + 1", "+ batch * nout + 1"),
            # the biases forgotten
            PREDICT.replace("nin * nhidden + nhidden", "nin * nhidden").replace("nhidden * nout + nout", "nhidden * nout"),
            # 8 bytes an entry whatever the dtype
            PREDICT.replace("return itemsize * entries", "return 8 * entries"),
            # the tanh output forgotten: one array per hidden layer
            PREDICT.replace("2 * batch * nhidden", "batch * nhidden"),
            # the input x forgotten: only what the graph computed, and the parameters
            PREDICT.replace("batch * nin + ", ""),
            # the one-number loss forgotten
            PREDICT.replace("2 * batch * nout + 1)", "2 * batch * nout)"),
            # a float, not an int
            PREDICT.replace("return itemsize * entries", "return itemsize * entries * 1.0"),
        ],
        "right": [
            '''
def predict_nbytes(batch, nin, nhidden, nout, itemsize):
    shapes = [(batch, nin), (nin, nhidden), (nhidden,), (batch, nhidden), (batch, nhidden),
              (nhidden, nout), (nout,), (batch, nout), (batch, nout), (batch, nout), ()]
    return sum(math.prod(shape) for shape in shapes) * itemsize
''',
        ],
    },
    "train": {
        "wrong": [
            # the loop as given: total is a Tensor, and so is every running mean
            TRAIN.replace("total += loss.item()", "total = total + loss")
                 .replace("    return running", "    return [r.item() for r in running]"),
            # plain numbers returned, but total still chains every step's loss
            TRAIN.replace("total += loss.item()", "total = total + loss")
                 .replace("running.append(total / (step + 1))", "running.append(total.item() / (step + 1))"),
            # every loss kept in a list, and the mean taken from it
            TRAIN.replace("    total = 0.0\n", "    losses = []\n")
                 .replace("total += loss.item()\n        running.append(total / (step + 1))",
                          "losses.append(loss)\n        running.append(sum(l.item() for l in losses) / (step + 1))"),
            # the leak fixed, but the gradients never cleared
            TRAIN.replace("        opt.zero_grad()\n", ""),
            # each step's loss, not the running mean
            TRAIN.replace("running.append(total / (step + 1))", "running.append(loss.item())"),
            # total a plain number, but every loss also kept, for a plot later
            TRAIN.replace("    running = []\n", "    running = []\n    kept = []\n")
                 .replace("total += loss.item()", "total += loss.item()\n        kept.append(loss)"),
        ],
        "right": [
            TRAIN.replace("total += loss.item()", "total = total + loss.detach()")
                 .replace("running.append(total / (step + 1))", "running.append((total / (step + 1)).item())"),
            TRAIN.replace("total += loss.item()", "total += float(loss.data)"),
        ],
    },
    "checkpointed_forward": {
        "wrong": [
            # the lambda reads start when it runs, in backward: every segment recomputes the last one
            SEGMENTS.replace("h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)",
                             "h = checkpoint(lambda t: run_blocks(layers[start:start + k], t), h)"),
            # the last, shorter segment dropped
            SEGMENTS.replace("range(0, len(layers), k)", "range(0, len(layers) - k + 1, k)"),
            # no checkpoint at all
            "def checkpointed_forward(layers, x, k):\n    return run_blocks(layers, x)\n",
            # a checkpoint around every block, whatever k is
            '''
def checkpointed_forward(layers, x, k):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: layer(t).tanh(), h)
    return h
''',
            # one checkpoint around the whole stack
            "def checkpointed_forward(layers, x, k):\n    return checkpoint(lambda t: run_blocks(layers, t), x)\n",
            # the segment runs outside, and checkpoint only wraps its output
            SEGMENTS.replace("h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)",
                             "h = checkpoint(lambda t: t, run_blocks(segment, h))"),
            # the segment's input captured instead of passed
            SEGMENTS.replace("h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)",
                             "h = checkpoint(lambda t, segment=segment, h=h: run_blocks(segment, h), h)"),
        ],
        "right": [
            '''
def checkpointed_forward(layers, x, k):
    import functools

    segments = [layers[i:i + k] for i in range(0, len(layers), k)]
    h = x
    for segment in segments:
        h = checkpoint(functools.partial(run_blocks, segment), h)
    return h
''',
        ],
    },
}
