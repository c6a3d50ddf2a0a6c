# kunit.py --qemu_config for x86_64: like tools/testing/kunit/qemu_configs/
# x86_64.py, but 4 vCPUs (so KCSAN sees real concurrency) and 2 GiB RAM
# (kunit.py passes -m 1024 first; the later -m wins).  kunit.py always adds
# "-accel kvm -accel hvf -accel tcg"; scripts/qemu-tcg/ on PATH strips the
# kvm/hvf ones (see README, QEMU_ACCEL).  tsc=reliable: no clocksource
# watchdog.  Under TCG it checks the TSC's skew from timer and IPI context
# at once, and KCSAN (strict) reported that race in kernel/time/clocksource.c
# (watchdog_check_skew() against itself), which is not the code under test.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 tsc=reliable',
			   extra_qemu_params=['-bios', 'qboot.rom',
					      '-smp', '4', '-m', '2048'])
