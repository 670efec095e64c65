#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deploy/kubernetes/*.yaml against the Kubernetes API schema, offline:
# deploy/kubernetes/validate/validate.js with the npm packages of its
# package.json (kubernetes-models' JSON-schema validators, and the API's
# TypeScript types checked by tsc for unknown fields). They are installed
# under build/deploy/validate/ on the first run (npm, about 15 s); the test
# skips when npm or its registry cannot be had.
#
# That the checker catches what it should is checked too: a copy of the
# manifest with a misspelt field and one with a string for a number must
# both be refused.
. "$(dirname "$0")/../lib/deploy.bash"

xdpt_require_cmd node npm
xdpt_tmpdir
SRC=$XDPT_REPO/deploy/kubernetes/validate
DIR=$XDPT_REPO/build/deploy/validate

xdpt_log "1. the checker's packages, in ${DIR#"$XDPT_REPO"/}"
mkdir -p "$DIR"
cp "$SRC/validate.js" "$DIR/"
if ! cmp -s "$SRC/package.json" "$DIR/package.json" || [ ! -d "$DIR/node_modules/typescript" ]; then
	cp "$SRC/package.json" "$DIR/"
	(cd "$DIR" && timeout -k 5 120 npm install --no-audit --no-fund --no-package-lock \
		--loglevel=error) >"$XDPT_TMP/npm.log" 2>&1 ||
		xdpt_skip "npm install of the checker's packages failed:" \
			"$(tail -n 3 "$XDPT_TMP/npm.log")"
fi

xdpt_log "2. the manifests"
for f in "$XDPT_REPO"/deploy/kubernetes/*.yaml; do
	xdpt_ok node "$DIR/validate.js" "$f"
	printf '%s\n' "$XDPT_OUT" | sed 's/^/#   /'
	xdpt_assert_match '^[0-9]+ objects valid$' "$XDPT_OUT" "validate.js ${f##*/}"
done

xdpt_log "3. the checker refuses what the API server would"
sed 's/readOnlyRootFilesystem: true/readOnlyRootFilesytem: true/' "$DP_MANIFEST" \
	>"$XDPT_TMP/typo.yaml"
xdpt_rc 1 node "$DIR/validate.js" "$XDPT_TMP/typo.yaml"
xdpt_assert_match "'\"?readOnlyRootFilesytem\"?' does not exist in type 'SecurityContext'" \
	"$XDPT_OUT" "a misspelt field"
sed 's/periodSeconds: 10$/periodSeconds: "10"/' "$DP_MANIFEST" >"$XDPT_TMP/type.yaml"
cmp -s "$DP_MANIFEST" "$XDPT_TMP/type.yaml" &&
	xdpt_fail "no 'periodSeconds: 10' to break in the manifest"
xdpt_rc 1 node "$DIR/validate.js" "$XDPT_TMP/type.yaml"
xdpt_assert_match 'periodSeconds must be integer' "$XDPT_OUT" "a string for a number"
# The container's first key, its name, replaced by its pull policy.
sed -e 's/^\( *\)- name: xdpong$/\1- imagePullPolicy: IfNotPresent/' \
	-e '/^ *imagePullPolicy: IfNotPresent$/d' "$DP_MANIFEST" >"$XDPT_TMP/noname.yaml"
xdpt_rc 1 node "$DIR/validate.js" "$XDPT_TMP/noname.yaml"
xdpt_assert_match "must have required property 'name'|Property 'name' is missing" "$XDPT_OUT" \
	"a container without a name"
xdpt_pass
