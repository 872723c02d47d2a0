package ptyio

// Buffers reports how many read buffers p holds (made and not dropped or
// let go), how many it made in all, and whether its parser goroutine was
// started.
func Buffers(p *Pump) (made, ever int, parsing bool) { return p.made, p.ever, p.parsing != nil }
