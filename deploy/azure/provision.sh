#!/usr/bin/env bash
# provision.sh: an Azure Storage account for Surveys to scale out on, and an
# identity that may use it. Needs the az CLI, signed in (az login) with the
# right to create resources and role assignments in the subscription.
#
#   deploy/azure/provision.sh --account surveysprod [--resource-group surveys]
#       [--location westeurope] [--identity surveys | --principal-id ID]
#       [--vm NAME] [--region NAME] [--sku Standard_ZRS] [--dry-run]
#
# It creates (or leaves as they are, if they exist):
#   - the resource group;
#   - a StorageV2 account: HTTPS only, TLS 1.2 at least, blob public access
#     allowed (the "logos" container is public), shared keys off (the
#     servers sign in with a managed identity);
#   - the public "logos" container (the servers create the rest at start);
#   - a user-assigned managed identity (or, with --principal-id, uses an
#     existing one, such as a VM's system-assigned identity), attached to
#     --vm when given;
#   - the roles Storage Table, Blob and Queue Data Contributor for that
#     identity on the account.
# Then it prints the lines to put in /etc/surveys/surveys.env on every
# instance. With --region NAME the account is a tenant region's
# (SURVEYS_REGIONS), and the lines name AZURE_STORAGE_ACCOUNT_<NAME>.
# --dry-run prints the az commands instead of running them.
set -euo pipefail

resource_group=surveys
location=westeurope
account=""
identity=surveys
principal_id=""
vm=""
region=""
sku=Standard_ZRS
dry_run=false

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

die() {
	echo "provision.sh: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--resource-group) resource_group=${2:?--resource-group needs a value}; shift 2 ;;
	--location) location=${2:?--location needs a value}; shift 2 ;;
	--account) account=${2:?--account needs a value}; shift 2 ;;
	--identity) identity=${2:?--identity needs a value}; shift 2 ;;
	--principal-id) principal_id=${2:?--principal-id needs a value}; shift 2 ;;
	--vm) vm=${2:?--vm needs a value}; shift 2 ;;
	--region) region=${2:?--region needs a value}; shift 2 ;;
	--sku) sku=${2:?--sku needs a value}; shift 2 ;;
	--dry-run) dry_run=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

# Azure's rules: an account name is 3-24 lower-case letters and digits,
# unique in Azure; a region name (as in SURVEYS_REGIONS) lower-case letters
# and digits.
[ -n "$account" ] || die "--account is required: 3-24 lower-case letters and digits, unique in Azure"
[[ "$account" =~ ^[a-z0-9]{3,24}$ ]] || die "--account $account: use 3-24 lower-case letters and digits"
[[ "$resource_group" =~ ^[-A-Za-z0-9_.()]{1,90}$ ]] || die "--resource-group $resource_group: not a valid resource group name"
[[ "$location" =~ ^[a-z0-9]+$ ]] || die "--location $location: use an Azure location name such as westeurope"
[[ "$identity" =~ ^[A-Za-z0-9][-A-Za-z0-9_]{2,127}$ ]] || die "--identity $identity: 3-128 letters, digits, - and _"
[ -z "$region" ] || [[ "$region" =~ ^[a-z0-9]{2,40}$ ]] || die "--region $region: use lower-case letters and digits, as SURVEYS_REGIONS does"
[ -z "$principal_id" ] || [ -z "$vm" ] || die "--vm attaches the user-assigned identity; with --principal-id, the identity is already the VM's"
case "$sku" in
Standard_LRS | Standard_ZRS | Standard_GRS | Standard_RAGRS | Standard_GZRS | Standard_RAGZRS) ;;
*) die "--sku $sku: use a Standard_ redundancy (LRS, ZRS, GRS, RAGRS, GZRS, RAGZRS)" ;;
esac

# az runs the az CLI, or prints the command with --dry-run. A query's
# result is read from stdout; in a dry run it is the placeholder $1.
az_do() {
	if $dry_run; then
		printf '+ az'
		printf ' %q' "$@"
		printf '\n'
	else
		az "$@" >/dev/null
	fi
}

az_get() {
	local placeholder=$1
	shift
	if $dry_run; then
		printf '+ az' >&2
		printf ' %q' "$@" >&2
		printf '\n' >&2
		printf '%s\n' "$placeholder"
	else
		az "$@" --output tsv
	fi
}

az_do group create --name "$resource_group" --location "$location"

az_do storage account create --name "$account" --resource-group "$resource_group" --location "$location" \
	--kind StorageV2 --sku "$sku" --https-only true --min-tls-version TLS1_2 \
	--allow-blob-public-access true --allow-shared-key-access false
scope=$(az_get "/subscriptions/SUBSCRIPTION/resourceGroups/$resource_group/providers/Microsoft.Storage/storageAccounts/$account" \
	storage account show --name "$account" --resource-group "$resource_group" --query id)

# The only public container: logos, read by browsers from the account.
az_do storage container-rm create --storage-account "$account" --resource-group "$resource_group" \
	--name logos --public-access blob

client_id=""
if [ -z "$principal_id" ]; then
	az_do identity create --name "$identity" --resource-group "$resource_group" --location "$location"
	principal_id=$(az_get PRINCIPAL_ID identity show --name "$identity" --resource-group "$resource_group" --query principalId)
	client_id=$(az_get CLIENT_ID identity show --name "$identity" --resource-group "$resource_group" --query clientId)
	if [ -n "$vm" ]; then
		identity_id=$(az_get "/subscriptions/SUBSCRIPTION/resourceGroups/$resource_group/providers/Microsoft.ManagedIdentity/userAssignedIdentities/$identity" \
			identity show --name "$identity" --resource-group "$resource_group" --query id)
		az_do vm identity assign --name "$vm" --resource-group "$resource_group" --identities "$identity_id"
	fi
fi

for role in "Storage Table Data Contributor" "Storage Blob Data Contributor" "Storage Queue Data Contributor"; do
	have=$(az_get 0 role assignment list --assignee "$principal_id" --role "$role" --scope "$scope" --query 'length(@)')
	if [ "$have" = 0 ]; then
		az_do role assignment create --assignee-object-id "$principal_id" --assignee-principal-type ServicePrincipal \
			--role "$role" --scope "$scope"
	fi
done

cat <<LINES

# Put these lines in /etc/surveys/surveys.env on every instance:
LINES
if [ -n "$region" ]; then
	echo "AZURE_STORAGE_ACCOUNT_${region^^}=$account"
	echo "# and add $region to SURVEYS_REGIONS (on every instance)"
else
	echo "SURVEYS_STORAGE=azure"
	echo "AZURE_STORAGE_ACCOUNT=$account"
fi
if [ -n "$client_id" ]; then
	echo "AZURE_CLIENT_ID=$client_id"
fi
cat <<'LINES'
# The same on every instance (make one with: openssl rand -base64 32):
#SURVEYS_SECRET_KEY=
# The scheme and host browsers use, behind the reverse proxy:
#SURVEYS_PUBLIC_URL=https://surveys.example.com
# Role assignments take a few minutes to apply: a server started at once may
# be refused (403) until they do.
LINES
