// Package costmodel holds the analytic cost terms of distributed training,
// shared by the programs that validate them against measurements
// (distbench, dptrainbench) and those that predict larger runs from them
// (epochmodel): the bytes of the sampling and feature exchanges
// (traffic.go), the ring all-reduce of the gradients (allreduce.go), and
// the whole-epoch model that combines them with the compute of the
// minibatches, serial and pipelined (epoch.go).
package costmodel
