; Edges out of a jump table that carry a swap: the loop's header takes (y, x)
; straight from the switch's block (case 4), a critical edge that LLVM will not
; split, so an allocator that needs moves there makes the write-back redirect the
; jump table's entry to a new block. main prints a checksum of many trips.
; Usage: jump_table_swap [rounds]
define internal i64 @swapper(i64 %n, i64 %a, i64 %b) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %sw], [%i1, %body], [%i1, %c0], [%i1, %c1], [%i1, %c2], [%i1, %c3]
  %x = phi i64 [%a, %entry], [%y, %sw], [%y, %body], [%x0, %c0], [%x, %c1], [%x2, %c2], [%y, %c3]
  %y = phi i64 [%b, %entry], [%x, %sw], [%x, %body], [%y, %c0], [%y1, %c1], [%x, %c2], [%x, %c3]
  %i1 = add i64 %i, 1
  %k = urem i64 %i, 7
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %body
body:
  switch i64 %k, label %sw [
    i64 0, label %c0
    i64 1, label %c1
    i64 2, label %c2
    i64 3, label %c3
    i64 4, label %loop
    i64 5, label %c0
  ]
sw:
  br label %loop
c0:
  %x0 = mul i64 %x, 3
  br label %loop
c1:
  %y1 = add i64 %y, %x
  br label %loop
c2:
  %x2 = xor i64 %x, 12345
  br label %loop
c3:
  br label %loop
exit:
  %r = add i64 %x, %y
  ret i64 %r
}

@fmt = private constant [5 x i8] c"%ld\0A\00"
declare i32 @printf(ptr, ...)
declare i32 @atoi(ptr)

define i32 @main(i32 %argc, ptr %argv) {
entry:
  %has = icmp sgt i32 %argc, 1
  br i1 %has, label %arg, label %go
arg:
  %p = getelementptr ptr, ptr %argv, i64 1
  %s = load ptr, ptr %p
  %r0 = call i32 @atoi(ptr %s)
  br label %go
go:
  %rounds = phi i32 [1, %entry], [%r0, %arg]
  %limit = mul i32 %rounds, 300
  %lim = sext i32 %limit to i64
  br label %loop
loop:
  %n = phi i64 [1, %go], [%n1, %loop]
  %acc = phi i64 [0, %go], [%acc1, %loop]
  %a = mul i64 %n, 7
  %b = xor i64 %n, 99
  %m0 = srem i64 %n, 300
  %m = add i64 %m0, 1
  %v = call i64 @swapper(i64 %m, i64 %a, i64 %b)
  %acc31 = mul i64 %acc, 31
  %acc1 = add i64 %acc31, %v
  %n1 = add i64 %n, 1
  %more = icmp slt i64 %n1, %lim
  br i1 %more, label %loop, label %done
done:
  %c = call i32 (ptr, ...) @printf(ptr @fmt, i64 %acc1)
  ret i32 0
}
