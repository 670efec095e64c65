# SPDX-License-Identifier: GPL-2.0
# bash completion for xdpong(8)

_xdpong_ifaces()
{
	local d

	for d in /sys/class/net/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

_xdpong()
{
	local cur prev words cword cmd i
	local cmds="attach detach status stats run addr trace config probe"
	# Each command's options, as 'xdpong options' lists them (a test holds
	# these to that table).
	local common="--verbose --help"
	local attach_opts="--mode --addr --no-iface-addrs --host-addrs --force --priority
		--latency-sample --max-prefixes --rate-limit --global-limit --stamp --stamp-driver $common"
	local -A opts=(
		[attach]="$attach_opts"
		[run]="$attach_opts --interval --json --metrics-file --config --metrics-listen"
		[detach]="$common"
		[status]="--json $common"
		[stats]="--json --all --prometheus $common"
		[addr]="--json $common"
		[trace]="--count --json --off $common"
		[config]="$common"
		[probe]="--count --interval --size --timeout --source --ttl --tos --ipv4 --ipv6
			--quiet --port --icmp --json --prometheus $common"
	)

	# bash-completion's helpers when installed; plain bash otherwise.
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${words[cword]}
		prev=${words[cword - 1]}
	fi

	# The subcommand: the first word that is not a global option.
	cmd=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-*) ;;
		*)
			cmd=${words[i]}
			break
			;;
		esac
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--verbose --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		fi
		return
	fi

	case $prev in
	-m | --mode)
		COMPREPLY=($(compgen -W "auto native skb" -- "$cur"))
		return
		;;
	--metrics-file | --config)
		if declare -F _filedir >/dev/null; then
			_filedir
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
		;;
	-I | --source)
		COMPREPLY=($(compgen -W "$(_xdpong_ifaces)" -- "$cur"))
		return
		;;
	-a | --addr | --priority | --latency-sample | --max-prefixes | --rate-limit | --global-limit | \
		-i | --interval | -c | --count | --metrics-listen | -s | --size | -W | --timeout | \
		-t | --ttl | -Q | --tos | --port)
		return
		;;
	esac

	# Positional words after the subcommand, options left out.
	local args=() w
	for ((w = i + 1; w < cword; w++)); do
		[[ ${words[w]} == -* ]] && continue
		case ${words[w - 1]} in
		-m | --mode | -a | --addr | --priority | --latency-sample | --max-prefixes | --rate-limit | \
			--global-limit | -i | --interval | -c | --count | --metrics-file | \
			--config | --metrics-listen | -s | --size | -W | --timeout | -I | --source | \
			-t | --ttl | -Q | --tos | --port)
			continue
			;;
		esac
		args+=("${words[w]}")
	done

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${opts[$cmd]}" -- "$cur"))
		return
	fi

	if [ "$cmd" = config ]; then
		if [ ${#args[@]} -eq 0 ]; then
			COMPREPLY=($(compgen -W "check" -- "$cur"))
		elif declare -F _filedir >/dev/null; then
			_filedir
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	fi
	[ "$cmd" = probe ] && return # targets: addresses or names
	if [ ${#args[@]} -eq 0 ]; then
		COMPREPLY=($(compgen -W "$(_xdpong_ifaces)" -- "$cur"))
		return
	fi
	if [ "$cmd" = addr ] && [ ${#args[@]} -eq 1 ]; then
		COMPREPLY=($(compgen -W "add del list" -- "$cur"))
	fi
} &&
	complete -F _xdpong xdpong
