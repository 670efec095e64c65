// SPDX-License-Identifier: GPL-2.0
//
// Check Kubernetes manifests against the Kubernetes API schema, offline:
//
//   node validate.js FILE.yaml...
//
// Two checks, from two npm packages generated from the Kubernetes OpenAPI
// spec, because neither catches everything on its own:
//  1. kubernetes-models: each object through its kind's JSON-schema
//     validator (ajv): types, required fields, formats.
//  2. kubernetes-types (the API as TypeScript types) and the TypeScript
//     compiler: each object becomes a typed object literal, and tsc's
//     excess-property check names any field the API does not have (a
//     misspelt `readOnlyRootFilesytem` passes check 1, which ignores
//     unknown fields; the API server would reject or drop it).
// Prints one line per object, then "N objects valid" or the errors; exit 0
// when every object passes both, 1 otherwise, 2 on usage.
'use strict';

const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');
const ts = require('typescript');

// apiVersion "apps/v1" -> ["apps", "v1"]; "v1" -> core.
function groupVersion(apiVersion) {
	const i = apiVersion.indexOf('/');
	return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

// Check 1: kubernetes-models/<group>/<version>/<Kind>.
function checkModel(doc) {
	const [group, version] = groupVersion(doc.apiVersion);
	let Model;

	try {
		Model = require(`kubernetes-models/${group ? group + '/' : ''}${version}/${doc.kind}`)[doc.kind];
	} catch (e) {
		return [`no schema for ${doc.apiVersion} ${doc.kind}`];
	}
	try {
		new Model(doc).validate();
		return [];
	} catch (e) {
		return [e.message];
	}
}

// Check 2: kubernetes-types/<group or core>/<version> declares the kind's
// interface; all objects in one file, one tsc run.
function checkTypes(objects) {
	// Beside node_modules, so that the imports resolve.
	const dir = fs.mkdtempSync(path.join(__dirname, '.check-'));
	const file = path.join(dir, 'manifest.ts');
	const lines = [];
	const starts = [];

	objects.forEach(({ doc }, i) => {
		const [group, version] = groupVersion(doc.apiVersion);
		// "rbac.authorization.k8s.io" -> kubernetes-types/rbac/v1
		const mod = `kubernetes-types/${group ? group.split('.')[0] : 'core'}/${version}`;

		lines.push(`import type { ${doc.kind} as K${i} } from '${mod}';`);
	});
	objects.forEach(({ doc }, i) => {
		starts.push(lines.length + 1);
		lines.push(`export const o${i}: K${i} = ${JSON.stringify(doc, null, 1)};`);
	});
	const text = lines.join('\n') + '\n';
	fs.writeFileSync(file, text);
	const program = ts.createProgram([file], {
		strict: true,
		noEmit: true,
		skipLibCheck: true,
		types: [],
		moduleResolution: ts.ModuleResolutionKind.Node10,
	});
	const errors = objects.map(() => []);
	for (const d of ts.getPreEmitDiagnostics(program)) {
		const msg = ts.flattenDiagnosticMessageText(d.messageText, ' ');
		if (!d.file || d.file.fileName !== program.getSourceFile(file).fileName) {
			errors.forEach((e) => e.push(msg));
			continue;
		}
		const { line } = d.file.getLineAndCharacterOfPosition(d.start);
		let i = starts.length - 1;
		while (i > 0 && starts[i] > line + 1)
			i--;
		if (line + 1 < starts[0]) {
			errors.forEach((e) => e.push(msg));
			continue;
		}
		// The field's path, from the JSON text around the error.
		const near = text.split('\n')[line].trim();
		errors[i].push(`${msg} (at ${near})`);
	}
	fs.rmSync(dir, { recursive: true, force: true });
	return errors;
}

function main(files) {
	if (!files.length) {
		console.error('usage: node validate.js FILE.yaml...');
		return 2;
	}
	const objects = [];
	for (const f of files) {
		let docs;
		try {
			docs = yaml.loadAll(fs.readFileSync(f, 'utf8'));
		} catch (e) {
			console.log(`FAIL ${f}: not YAML: ${e.message}`);
			return 1;
		}
		for (const doc of docs) {
			if (doc === null || doc === undefined)
				continue;
			if (typeof doc !== 'object' || !doc.apiVersion || !doc.kind) {
				console.log(`FAIL ${f}: a document without apiVersion and kind`);
				return 1;
			}
			objects.push({ file: f, doc });
		}
	}
	const typeErrors = checkTypes(objects);
	let bad = 0;
	objects.forEach(({ file, doc }, i) => {
		const errs = checkModel(doc).concat(typeErrors[i]);
		const name = `${file}: ${doc.apiVersion} ${doc.kind} ${doc.metadata && doc.metadata.name}`;
		if (errs.length) {
			bad++;
			console.log(`FAIL ${name}`);
			for (const e of errs)
				console.log(`  ${e}`);
		} else {
			console.log(`ok   ${name}`);
		}
	});
	if (bad) {
		console.log(`${bad} of ${objects.length} objects invalid`);
		return 1;
	}
	console.log(`${objects.length} objects valid`);
	return 0;
}

process.exitCode = main(process.argv.slice(2));
