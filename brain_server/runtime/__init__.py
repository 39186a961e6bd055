"""Process plumbing under the layers that think, store or serve: pipes, loops, vitals, logs."""
