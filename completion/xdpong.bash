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
	local cmds="attach detach status stats run addr trace"
	local attach_opts="--mode --addr --no-iface-addrs --force --latency-sample
		--rate-limit --global-limit --verbose --help"

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
	--metrics-file)
		if declare -F _filedir >/dev/null; then
			_filedir
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
		;;
	-a | --addr | --latency-sample | --rate-limit | --global-limit | \
		-i | --interval | -c | --count)
		return
		;;
	esac

	# Positional words after the subcommand, options left out.
	local args=() w
	for ((w = i + 1; w < cword; w++)); do
		[[ ${words[w]} == -* ]] && continue
		case ${words[w - 1]} in
		-m | --mode | -a | --addr | --latency-sample | --rate-limit | \
			--global-limit | -i | --interval | -c | --count | --metrics-file)
			continue
			;;
		esac
		args+=("${words[w]}")
	done

	if [[ $cur == -* ]]; then
		case $cmd in
		attach) COMPREPLY=($(compgen -W "$attach_opts" -- "$cur")) ;;
		run) COMPREPLY=($(compgen -W "$attach_opts --interval --json --metrics-file" -- "$cur")) ;;
		detach) COMPREPLY=($(compgen -W "--verbose --help" -- "$cur")) ;;
		status) COMPREPLY=($(compgen -W "--json --verbose --help" -- "$cur")) ;;
		stats) COMPREPLY=($(compgen -W "--json --all --prometheus --verbose --help" -- "$cur")) ;;
		addr) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
		trace) COMPREPLY=($(compgen -W "--count --json --off --verbose --help" -- "$cur")) ;;
		esac
		return
	fi

	if [ ${#args[@]} -eq 0 ]; then
		COMPREPLY=($(compgen -W "$(_xdpong_ifaces)" -- "$cur"))
		return
	fi
	if [ "$cmd" = addr ] && [ ${#args[@]} -eq 1 ]; then
		COMPREPLY=($(compgen -W "add del list" -- "$cur"))
	fi
} &&
	complete -F _xdpong xdpong
